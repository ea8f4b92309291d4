"""Obsidian's JSON files are parsed and walked in a worker thread once long (found attacking a
real server, session 88): a bookmarks.json of 100,000 items held the event loop 8.7 s, a
workspace.json of 100,000 tabs 7.3 s (list_recent_files of 100,000 recent files 2.4 s), a canvas of
100,000 nodes 0.9 s, every other call of every client waiting; add_bookmark and remove_bookmark
parse and write out the whole file too. Checked by where the file is
parsed (the event loop's thread or not) and by how many entries a page looks at: never timed."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.obsidian import bookmarks as bm
from service.obsidian import canvas as cv
from service.obsidian import workspace as ws
from service.tools.obsidian import workspace
from tests.conftest import started

MANY = 5_000  # past `offloop.OFF_LOOP_CHARS` in every file below


def _files() -> dict[str, str]:
    leaves = [
        {"id": f"l{i}", "type": "leaf", "state": {"type": "markdown", "state": {"file": "A.md"}}} for i in range(MANY)
    ]
    return {
        "A.md": "# A\n",
        ".obsidian/bookmarks.json": json.dumps(
            {"items": [{"type": "url", "url": f"https://x/{i}"} for i in range(MANY)]}
        ),
        ".obsidian/workspace.json": json.dumps(
            {
                "main": {"type": "split", "children": [{"type": "tabs", "children": leaves}]},
                "active": "l0",
                "lastOpenFiles": [f"n{i}.md" for i in range(MANY)],
            }
        ),
        "Board.canvas": json.dumps(
            {
                "nodes": [
                    {"id": f"n{i}", "type": "text", "text": "t", "x": i, "y": 0, "width": 9, "height": 9}
                    for i in range(MANY)
                ]
            }
        ),
    }


def _where(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, seen: list[bool]) -> None:
    real = getattr(owner, name)

    def noted(*args: Any, **kwargs: Any) -> Any:
        seen.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, noted)


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("list_bookmarks", {}),
        ("add_bookmark", {"type": "file", "path": "A.md"}),
        ("remove_bookmark", {"url": "https://x/7"}),
        ("get_workspace", {}),
        ("list_recent_files", {}),
        ("read_canvas", {"path": "Board"}),
    ],
)
async def test_long_obsidian_files_are_parsed_off_the_event_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tool: str, args: dict[str, Any]
) -> None:
    async with started(make_vault(_files()), governor={"max_response_bytes": 8 << 20}) as vg:
        if tool == "remove_bookmark":
            listed = await vg.ok("list_bookmarks")
            args = {"id": listed["items"][7]["id"]}
        on_loop: list[bool] = []
        _where(monkeypatch, bm, "items_of", on_loop)  # each walks what it parsed
        _where(monkeypatch, bm, "dumps", on_loop)  # an edit writes the file out where it parsed it
        _where(monkeypatch, ws, "leaves", on_loop)
        _where(monkeypatch, ws, "last_open_files", on_loop)
        _where(monkeypatch, cv, "loads", on_loop)
        await vg.ok(tool, **args)
    assert on_loop and not any(on_loop), on_loop


async def test_a_page_of_recent_files_looks_at_the_entries_it_lists(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    looked = [0]
    real = workspace.visible_path

    def counted(ctx: Any, raw: object) -> str | None:
        looked[0] += 1
        return real(ctx, raw)

    monkeypatch.setattr(workspace, "visible_path", counted)
    async with started(make_vault(_files())) as vg:
        first = await vg.ok("list_recent_files", limit=20)
        assert [f["path"] for f in first["items"]] == [f"n{i}.md" for i in range(20)]
        assert looked[0] <= 21, looked[0]  # every one of the 5,000 before
        looked[0] = 0
        second = await vg.ok("list_recent_files", limit=20, cursor=first["next_cursor"])
        assert [f["path"] for f in second["items"]] == [f"n{i}.md" for i in range(20, 40)]
        assert looked[0] <= 41, looked[0]


async def test_a_workspace_of_thousands_of_tabs_lists_the_first_ones(make_vault: Callable[..., Path]) -> None:
    """get_workspace built every tab (100,000: 7 s, then refused as too long); it lists the first
    `TABS_PAGE` and says how many there are."""
    async with started(make_vault(_files()), governor={"max_response_bytes": 8 << 20}) as vg:
        out = await vg.ok("get_workspace")
        assert (len(out["tabs"]), out["tabs_total"]) == (workspace.TABS_PAGE, MANY)
        assert [t["id"] for t in out["tabs"][:3]] == ["l0", "l1", "l2"] and out["tabs"][0]["active"] is True
