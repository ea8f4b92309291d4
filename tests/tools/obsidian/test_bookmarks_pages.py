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

import pytest

from service.obsidian import bookmarks as bm
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


async def test_a_page_hashes_only_the_ids_it_lists(make_vault: Callable[..., Path], key_hashes: list[int]) -> None:
    """Every item's id was hashed for every page (2.5 s of CPU for 100,000 bookmarks); a page hashes
    its own, and those shaped like them before them: 30 identical links are numbered as ever."""
    same = [{"type": "url", "url": "https://example.org/same", "ctime": 5} for _ in range(30)]
    data = {"items": [*(_bookmarks()["items"]), *same, {"type": "file", "path": "A.md", "ctime": 1}]}
    expected = [loc.id for loc in bm.walk(bm.items_of(data), lambda _: True)]
    root = make_vault({"A.md": "# A\n", ".obsidian/bookmarks.json": json.dumps(data)})
    hashed = key_hashes
    hashed[0] = 0  # the expected walk above is not counted
    async with started(root) as vg:
        first = await vg.ok("list_bookmarks", limit=50)
        assert [i["id"] for i in first["items"]] == expected[:50]
        assert hashed[0] <= 50, hashed[0]  # all 1,255 before
        hashed[0] = 0
        second = await vg.ok("list_bookmarks", limit=50, cursor=first["next_cursor"])
        assert [i["id"] for i in second["items"]] == expected[50:100]
        assert hashed[0] <= 52, hashed[0]
        n = len(expected)
        head = await vg.ok("list_bookmarks", limit=1000)
        near = await vg.ok("list_bookmarks", limit=n - 1005, cursor=head["next_cursor"])
        tail, cursor = [], near["next_cursor"]
        while cursor:  # the last 5, by twos
            page = await vg.ok("list_bookmarks", limit=2, cursor=cursor)
            tail, cursor = tail + page["items"], page.get("next_cursor")
        assert [i["id"] for i in tail] == expected[n - 5 :]
        assert expected[-2].endswith("-30") and expected[-3].endswith("-29")
        await vg.ok("remove_bookmark", id=expected[-2])  # the id a page gave names that item
        left = json.loads(vg.read(".obsidian/bookmarks.json"))["items"]
        assert len(left) == len(data["items"]) - 1 and left[-1]["type"] == "file"


def test_ids_of_a_few_items_are_those_of_the_whole_walk() -> None:
    """`bm.ids_at` hashes only items shaped alike; items of one key are always shaped alike (a
    NaN, a dict written in another key order, a list), so the numbers match the whole walk's."""
    odd = [
        {"type": "graph", "options": {"a": 1, "b": 2}, "title": {"x": 1, "y": 2}},
        {"type": "graph", "options": {"b": 2, "a": 1}, "title": {"y": 2, "x": 1}},
        {"type": "url", "url": "u", "ctime": float("nan")},
        {"type": "url", "url": "u", "ctime": float("nan")},
        {"type": "url", "url": "u", "ctime": 1},
        {"type": "url", "url": "u", "ctime": True},
        {"type": "url", "url": ["u"], "ctime": 1.0},
        {"type": "group", "title": "g", "items": [{"type": "url", "url": ["u"], "ctime": 1.0}]},
        {"type": "group", "title": "g", "items": []},
    ]
    data = json.loads(json.dumps({"items": odd}))  # NaN as the file writes it
    keyed = [loc.id for loc in bm.walk(bm.items_of(data), lambda _: True)]
    every = list(bm.walk(bm.items_of(data), lambda _: True, keyed=False))
    assert {loc.id for loc in every} == {""}
    assert [bm.ids_at(every, [i])[i] for i in range(len(every))] == keyed
    assert bm.ids_at(every, range(len(every))) == dict(enumerate(keyed))
    assert keyed[1].endswith("-2") and keyed[3].endswith("-2") and keyed[-1].endswith("-2")


async def test_a_walk_asks_the_acl_once_per_path(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """3,000 bookmarks of the headings of two notes: each bookmark's path was checked (the ACL's
    answer was half of a walk's time); each path is checked once a call."""
    from service.tools.obsidian import bookmarks as tool

    heads = [{"type": "file", "path": p, "subpath": f"#h{i}", "ctime": i} for i in range(1500) for p in "AB"]
    for head in heads:
        head["path"] += ".md"
    root = make_vault({"A.md": "# A\n", "B.md": "# B\n", ".obsidian/bookmarks.json": json.dumps({"items": heads})})
    asked: list[object] = []
    real = tool.visible_path

    def counted(ctx: Any, raw: object) -> str | None:
        asked.append(raw)
        return real(ctx, raw)

    monkeypatch.setattr(tool, "visible_path", counted)
    async with started(root) as vg:
        page = await vg.ok("list_bookmarks", limit=10)
        assert page["total"] == 3000 and [i["path"] for i in page["items"][:2]] == ["A.md", "B.md"]
        assert len(asked) <= 2 + 10, len(asked)  # the walk's 2, the page's 10: 3,010 before
