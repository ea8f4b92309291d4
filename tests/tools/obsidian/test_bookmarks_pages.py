"""list_bookmarks lists by pages, as every list tool does (found attacking a real server, session
88): a bookmarks.json of 100,000 items was one answer, built whole (30 MB, 7 s) before the response
budget refused it. Now pages of `limit` (200 by default), depth first, `next_cursor` naming the
last bookmark listed by its id: a group's bookmarks go on on the next page with their `group` and
`depth`, and its `items` count is the same on every page; bookmarks added meanwhile shift no page;
a cursor whose bookmark is gone is `stale_cursor`. Counted, never timed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

GROUPS, PER_GROUP = 12, 100  # a group, its 100 links, then a group nested in the last ones


def _bookmarks() -> dict[str, Any]:
    items: list[Any] = [{"type": "file", "path": "A.md", "ctime": 1}]
    for g in range(GROUPS):
        links = [{"type": "url", "url": f"https://example.org/{g}/{i}", "ctime": i} for i in range(PER_GROUP)]
        inner = {"type": "group", "title": f"inner {g}", "ctime": g, "items": links[:10]}
        items.append({"type": "group", "title": f"group {g}", "ctime": g, "items": [*links[10:], inner]})
    return {"items": items}


TOTAL = 1 + GROUPS * (1 + PER_GROUP + 1)


async def _pages(vg: Harness, **args: Any) -> list[dict[str, Any]]:
    pages = [await vg.ok("list_bookmarks", **args)]
    while cursor := pages[-1].get("next_cursor"):
        pages.append(await vg.ok("list_bookmarks", **args, cursor=cursor))
    return pages


async def test_bookmarks_are_listed_by_pages_depth_first(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n", ".obsidian/bookmarks.json": json.dumps(_bookmarks())})
    async with started(root) as vg:
        pages = await _pages(vg)
        assert [len(p["items"]) for p in pages] == [200] * 6 + [TOTAL - 1200]
        assert {p["total"] for p in pages} == {TOTAL} and {p["etag"] for p in pages} == {pages[0]["etag"]}
        items = [i for p in pages for i in p["items"]]
        assert len({i["id"] for i in items}) == TOTAL  # each once
        whole = await vg.ok("list_bookmarks", limit=1000)
        rest = await vg.ok("list_bookmarks", limit=1000, cursor=whole["next_cursor"])
        assert whole["items"] + rest["items"] == items and rest["next_cursor"] is None
        # A group split over two pages: its bookmarks on the next page still say where they are.
        split = pages[1]["items"][0]
        assert (split["group"], split["depth"]) == ("inner 1", 2)  # inside a group inside a group
        groups = {i["title"]: i["items"] for i in items if i["type"] == "group"}
        assert groups["group 0"] == PER_GROUP + 1 and groups["inner 0"] == 10

        inside = await _pages(vg, group="group 3", limit=40)
        assert [len(p["items"]) for p in inside] == [40, 40, 21] and inside[0]["total"] == 101
        assert {i["group"] for p in inside for i in p["items"]} == {"group 3", "inner 3"}


async def test_a_bookmark_added_between_pages_shifts_no_page(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n", "B.md": "# B\n", ".obsidian/bookmarks.json": json.dumps(_bookmarks())})
    async with started(root) as vg:
        first = await vg.ok("list_bookmarks", limit=100)
        await vg.ok("add_bookmark", type="file", path="B.md", position=0)  # before everything listed
        second = await vg.ok("list_bookmarks", limit=100, cursor=first["next_cursor"])
        before = await vg.ok("list_bookmarks", limit=1000)
        ids = [i["id"] for i in before["items"]]
        at = ids.index(first["items"][-1]["id"])
        assert [i["id"] for i in second["items"]] == ids[at + 1 : at + 101]
        assert second["total"] == TOTAL + 1


async def test_a_cursor_whose_bookmark_is_gone_is_stale(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n", ".obsidian/bookmarks.json": json.dumps(_bookmarks())})
    async with started(root) as vg:
        first = await vg.ok("list_bookmarks", limit=5)
        await vg.ok("remove_bookmark", id=first["items"][-1]["id"])
        error = await vg.err("list_bookmarks", "validation_error", limit=5, cursor=first["next_cursor"])
        assert error["details"]["reason"] == "stale_cursor"
        other = await vg.err("list_bookmarks", "validation_error", group="group 1", cursor=first["next_cursor"])
        assert other["details"]["field"] == "cursor"  # a cursor of another listing
        await vg.err("list_bookmarks", "validation_error", cursor="not a cursor")
        await vg.err("list_bookmarks", "validation_error", limit=1001)
