"""get_workspace lists the open tabs by pages, as every list tool does (session 89): it listed the
first 500 and only said how many there were (`tabs_total`). Pages of `limit` (500 by default: a
call without one answers as before), `next_cursor` naming the last tab listed by its leaf id, so
tabs opened meanwhile shift no page and a closed one's cursor is `stale_cursor`; a cursor of the
main area's tabs is not one of every area's. The layout is read once per version of the file for
the next pages and for list_recent_files. Counted, never timed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.obsidian import workspace as ws
from tests.conftest import Harness, started

TABS = 2_000
FILE = ".obsidian/workspace.json"


def _workspace(ids: list[str]) -> str:
    leaves = [{"id": i, "type": "leaf", "state": {"type": "markdown", "state": {"file": "A.md"}}} for i in ids]
    side = [{"id": f"s{i}", "type": "leaf", "state": {"type": "search", "title": "Search"}} for i in range(3)]
    return json.dumps(
        {
            "main": {"type": "split", "children": [{"type": "tabs", "children": leaves}]},
            "left": {"type": "split", "children": [{"type": "tabs", "children": side}]},
            "active": "l7",
            "lastOpenFiles": ["A.md", "B.md"],
        }
    )


IDS = [f"l{i}" for i in range(TABS)]


async def _pages(vg: Harness, **args: Any) -> list[dict[str, Any]]:
    pages = [await vg.ok("get_workspace", **args)]
    while cursor := pages[-1].get("next_cursor"):
        pages.append(await vg.ok("get_workspace", **args, cursor=cursor))
    return pages


async def test_tabs_are_listed_by_pages(make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    reads = [0]
    real = ws.leaves

    def counted(data: object) -> list[ws.Leaf]:
        reads[0] += 1
        return real(data)

    monkeypatch.setattr(ws, "leaves", counted)
    root = make_vault({"A.md": "# A\n", "B.md": "# B\n", FILE: _workspace(IDS)})
    async with started(root, governor={"max_response_bytes": 8 << 20}) as vg:
        pages = await _pages(vg)
        assert [len(p["tabs"]) for p in pages] == [500] * 4 and pages[-1]["next_cursor"] is None
        assert [t["id"] for p in pages for t in p["tabs"]] == IDS
        assert {p["tabs_total"] for p in pages} == {TABS}
        for p in pages:  # every page says the same of the rest of the layout
            assert p["found"] and p["active_file"]["path"] == "A.md"
            assert [f["path"] for f in p["recent_files"]] == ["A.md", "B.md"]
        assert [t["id"] for t in pages[0]["tabs"] if t["active"]] == ["l7"]
        both = await _pages(vg, include_sidebars=True, limit=1000)
        assert [len(p["tabs"]) for p in both] == [1000, 1000, 3] and both[0]["tabs_total"] == TABS + 3
        assert [t["area"] for t in both[-1]["tabs"]] == ["left"] * 3
        wrong = await vg.err("get_workspace", "validation_error", cursor=pages[0]["next_cursor"], include_sidebars=True)
        assert wrong["details"]["field"] == "cursor"
        recent = await vg.ok("list_recent_files")
        assert [f["path"] for f in recent["items"]] == ["A.md", "B.md"]
        assert reads[0] == 1  # 8 calls, one read of the layout


async def test_a_tab_opened_between_pages_shifts_no_page_and_a_closed_ones_cursor_is_stale(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"A.md": "# A\n", FILE: _workspace(IDS)})
    async with started(root) as vg:
        first = await vg.ok("get_workspace", limit=100)
        (root / FILE).write_text(_workspace(["new", *IDS]))
        second = await vg.ok("get_workspace", limit=100, cursor=first["next_cursor"])
        assert [t["id"] for t in second["tabs"]] == IDS[100:200] and second["tabs_total"] == TABS + 1
        (root / FILE).write_text(_workspace([i for i in IDS if i != "l99"]))
        stale = await vg.err("get_workspace", "validation_error", limit=100, cursor=first["next_cursor"])
        assert stale["details"]["reason"] == "stale_cursor"
        bad = await vg.err("get_workspace", "validation_error", cursor="not-a-cursor")
        assert bad["details"]["field"] == "cursor"
