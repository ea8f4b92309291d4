"""get_workspace and list_recent_files on .obsidian/workspace.json, through the chain."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny"}]}


def _leaf(ident: str, view: str, file: str | None = None, title: str | None = None, **extra: Any) -> dict[str, Any]:
    state: dict[str, Any] = {"type": view, "state": {"file": file, "mode": "source"} if file else {}}
    if title:
        state["title"] = title
    return {"id": ident, "type": "leaf", "state": state, **extra}


# The shape Obsidian 1.x saves: splits of tab groups of leaves, sidebars, the active leaf id.
WORKSPACE = {
    "main": {
        "id": "m",
        "type": "split",
        "children": [
            {
                "id": "t1",
                "type": "tabs",
                "currentTab": 1,
                "children": [
                    _leaf("a1", "markdown", "Welcome.md", "Welcome"),
                    _leaf("a2", "canvas", "Board.canvas", "Board", pinned=True),
                    _leaf("a3", "markdown", "Private/Diary.md", "Diary"),
                ],
            },
            {"id": "t2", "type": "tabs", "children": [_leaf("a4", "graph", title="Graph view")]},
        ],
        "direction": "vertical",
    },
    "left": {
        "id": "l",
        "type": "split",
        "children": [{"id": "t3", "type": "tabs", "children": [_leaf("s1", "file-explorer", title="Files")]}],
    },
    "active": "a2",
    "lastOpenFiles": ["Board.canvas", "Private/Diary.md", "Welcome.md", "img/cat.png", "Gone.md", "../etc/passwd"],
}

FILES = {
    "Welcome.md": "hi\n",
    "Board.canvas": "{}",
    "Private/Diary.md": "secret\n",
    "img/cat.png": b"\x89PNG",
    ".obsidian/workspace.json": json.dumps(WORKSPACE),
}


@pytest.mark.covers("get_workspace", "success")
async def test_workspace_tabs_active_file_and_recent(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), acl=NO_PRIVATE) as vg:
        out = await vg.ok("get_workspace")
        assert out["found"] is True
        assert out["active_file"]["path"] == "Board.canvas"
        assert out["active_file"]["obsidian_url"].endswith("file=Board.canvas")
        tabs = [
            (t["id"], t["view"], t["file"]["path"] if t["file"] else None, t["active"], t["selected"], t["pinned"])
            for t in out["tabs"]
        ]
        assert tabs == [
            ("a1", "markdown", "Welcome.md", False, False, False),
            ("a2", "canvas", "Board.canvas", True, True, True),
            ("a3", "markdown", None, False, False, False),  # a denied file: the tab shows nothing of it
            ("a4", "graph", None, False, True, False),
        ]
        assert out["tabs"][2]["title"] is None and out["tabs"][3]["title"] == "Graph view"
        recent = [(f["path"], f["exists"]) for f in out["recent_files"]]
        assert recent == [("Board.canvas", True), ("Welcome.md", True), ("img/cat.png", True), ("Gone.md", False)]
        assert "Diary" not in json.dumps(out)
        side = await vg.ok("get_workspace", include_sidebars=True)
        assert [t["area"] for t in side["tabs"]][-1] == "left"


@pytest.mark.covers("get_workspace", "success")
@pytest.mark.parametrize(
    "text",
    [None, "", "{broken", "[]", json.dumps({"main": {"type": "split"}}), json.dumps({"active": "x", "main": 3})],
)
async def test_missing_or_partial_workspace_is_empty(make_vault: Callable[..., Path], text: str | None) -> None:
    files: dict[str, str | bytes] = {"A.md": "a\n"}
    if text is not None:
        files[".obsidian/workspace.json"] = text
    async with started(make_vault(files)) as vg:
        out = await vg.ok("get_workspace")
        assert out["tabs"] == [] and out["active_file"] is None and out["recent_files"] == []
        assert (await vg.ok("list_recent_files"))["items"] == []


@pytest.mark.covers("get_workspace", "failure")
async def test_workspace_rejects_unknown_arguments(vg: Any) -> None:
    await vg.err("get_workspace", "validation_error", include_sidebars="maybe")


@pytest.mark.covers("list_recent_files", "success")
async def test_recent_files_page_and_filter(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), acl=NO_PRIVATE) as vg:
        first = await vg.ok("list_recent_files", limit=2)
        assert [(i["path"], i["kind"]) for i in first["items"]] == [("Board.canvas", "canvas"), ("Welcome.md", "note")]
        rest = await vg.ok("list_recent_files", limit=2, cursor=first["next_cursor"])
        assert [i["path"] for i in rest["items"]] == ["img/cat.png", "Gone.md"] and rest["next_cursor"] is None
        images = await vg.ok("list_recent_files", kind="image")
        assert [i["path"] for i in images["items"]] == ["img/cat.png"]


@pytest.mark.covers("list_recent_files", "failure")
async def test_recent_files_cursor_of_another_query(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        first = await vg.ok("list_recent_files", limit=1)
        await vg.err("list_recent_files", "validation_error", limit=1, kind="note", cursor=first["next_cursor"])
        await vg.err("list_recent_files", "validation_error", limit=0)
