"""Over real HTTP with the SDK client: list_bookmarks pages a bookmarks.json of 3,000 bookmarks in
groups (it answered all of them at once: 100,000 were 30 MB, refused only after 7 s of work),
each bookmark once across the pages, following next_cursor, and a group's pages alone with
`group`; a page after the file changed lists the new version only (its walk is kept between
pages of one version); get_workspace pages 2,000 tabs. No time is asserted."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

GROUPS, PER_GROUP = 30, 99


async def _pages(client: Any, **args: Any) -> list[dict[str, Any]]:
    pages = [await ok(client, "list_bookmarks", args)]
    while cursor := pages[-1].get("next_cursor"):
        pages.append(await ok(client, "list_bookmarks", args, cursor=cursor))
    return pages


async def test_bookmarks_are_listed_by_pages_over_http(make_vault: Callable[..., Path]) -> None:
    items = [
        {
            "type": "group",
            "title": f"g{g}",
            "items": [{"type": "url", "url": f"https://x/{g}/{i}"} for i in range(PER_GROUP)],
        }
        for g in range(GROUPS)
    ]
    root = make_vault({"A.md": "# A\n", ".obsidian/bookmarks.json": json.dumps({"items": items})})
    async with e2e(root) as (url, harness), Client(url) as client:
        await harness.indexed()
        pages = await _pages(client, limit=250)
        assert [len(p["items"]) for p in pages] == [250] * 12
        listed = [i for p in pages for i in p["items"]]
        assert len({i["id"] for i in listed}) == GROUPS * (PER_GROUP + 1) == pages[0]["total"]
        assert [i["items"] for i in listed if i["type"] == "group"] == [PER_GROUP] * GROUPS
        assert "next_cursor" not in pages[-1] or pages[-1]["next_cursor"] is None
        default = await ok(client, "list_bookmarks")
        assert len(default["items"]) == 200 and default["items"] == listed[:200]
        one = await _pages(client, group="g7", limit=40)
        assert [len(p["items"]) for p in one] == [40, 40, 19]
        assert {i["group"] for p in one for i in p["items"]} == {"g7"}
        wrong = await error(client, "list_bookmarks", group="g8", cursor=one[0]["next_cursor"])
        assert wrong["code"] == "validation_error" and wrong["details"]["field"] == "cursor"


async def test_a_page_after_the_file_changed_lists_the_new_version_over_http(make_vault: Callable[..., Path]) -> None:
    def written(urls: list[str]) -> str:
        return json.dumps({"items": [{"type": "url", "url": u, "ctime": 1} for u in urls]})

    before = [f"https://x/{i:04d}" for i in range(3000)]
    root = make_vault({"A.md": "# A\n", ".obsidian/bookmarks.json": written(before)})
    async with e2e(root) as (url, harness), Client(url) as client:
        await harness.indexed()
        first = await ok(client, "list_bookmarks", limit=100)
        again = await ok(client, "list_bookmarks", limit=100, cursor=first["next_cursor"])
        after = [u.replace("x/01", "y/01") for u in before[10:]]  # 10 gone before the cursor, 100 after it changed
        (root / ".obsidian/bookmarks.json").write_text(written(after))
        second = await ok(client, "list_bookmarks", limit=100, cursor=first["next_cursor"])
        assert [i["url"] for i in again["items"]] == before[100:200]
        assert [i["url"] for i in second["items"]] == after[90:190] and second["total"] == 2990
        assert second["etag"] != first["etag"] and "https://y/0100" in [i["url"] for i in second["items"]]
        (root / ".obsidian/bookmarks.json").write_text(written(before[100:]))  # the cursor's bookmark gone
        stale = await error(client, "list_bookmarks", limit=100, cursor=first["next_cursor"])
        assert stale["code"] == "validation_error" and stale["details"]["reason"] == "stale_cursor"


async def test_workspace_tabs_are_listed_by_pages_over_http(make_vault: Callable[..., Path]) -> None:
    tab = {"type": "leaf", "state": {"type": "markdown", "state": {"file": "A.md"}}}
    leaves = [{"id": f"l{i}", **tab} for i in range(2000)]
    layout = {"main": {"type": "split", "children": [{"type": "tabs", "children": leaves}]}, "active": "l1"}
    root = make_vault({"A.md": "# A\n", ".obsidian/workspace.json": json.dumps(layout)})
    async with e2e(root) as (url, harness), Client(url) as client:
        await harness.indexed()
        pages = [await ok(client, "get_workspace")]
        while cursor := pages[-1].get("next_cursor"):
            pages.append(await ok(client, "get_workspace", cursor=cursor))
        assert [len(p["tabs"]) for p in pages] == [500] * 4 and {p["tabs_total"] for p in pages} == {2000}
        assert [t["id"] for p in pages for t in p["tabs"]] == [f"l{i}" for i in range(2000)]
        assert pages[0]["active_file"]["path"] == "A.md" and pages[-1]["active_file"]["path"] == "A.md"
        wrong = await error(client, "get_workspace", include_sidebars=True, cursor=pages[0]["next_cursor"])
        assert wrong["code"] == "validation_error" and wrong["details"]["field"] == "cursor"
