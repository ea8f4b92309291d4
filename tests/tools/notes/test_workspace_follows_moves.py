"""Obsidian's workspace follows a move or a delete, as Obsidian does on a rename: `lastOpenFiles`
and each open tab's file in `.obsidian/workspace.json` (and `workspace-mobile.json`) get the new
path, a deleted note leaves the recent files; every other key and the file's indentation stay; a
file naming none of the paths, or a malformed one, is not touched and never fails the move; the
dry runs and the previews list the file when the call changes it."""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.vault import files
from tests.conftest import Harness, e2e, started

WS = ".obsidian/workspace.json"
MOBILE = ".obsidian/workspace-mobile.json"


def _leaf(leaf_id: str, view: str, file: str, title: str) -> dict[str, Any]:
    return {
        "id": leaf_id,
        "type": "leaf",
        "state": {"type": view, "state": {"file": file, "mode": "source"}, "title": title},
    }


WORKSPACE: dict[str, Any] = {
    "main": {
        "id": "m",
        "type": "split",
        "children": [
            {
                "id": "t",
                "type": "tabs",
                "children": [
                    _leaf("a1", "markdown", "Projects/Plan.md", "Plan"),
                    _leaf("a2", "markdown", "Welcome.md", "Welcome"),
                ],
                "currentTab": 0,
            }
        ],
        "direction": "vertical",
    },
    "left": {"id": "l", "type": "split", "children": [], "direction": "horizontal", "width": 300},
    "right": {
        "id": "r",
        "type": "split",
        "children": [
            {"id": "rt", "type": "tabs", "children": [_leaf("b1", "backlink", "Projects/Plan.md", "Backlinks")]}
        ],
        "direction": "horizontal",
    },
    "left-ribbon": {"hiddenItems": {"graph:Open graph view": False}},
    "active": "a1",
    "lastOpenFiles": ["Projects/Plan.md", "Welcome.md", "Notes/Old.md", "Attachments/pic.png"],
}


def _files(ws: dict[str, Any] = WORKSPACE) -> dict[str, str]:
    return {
        "Welcome.md": "# Welcome\n",
        "Projects/Plan.md": "# Plan\n\nSee [[Welcome]].\n",
        "Notes/Old.md": "# Old\n",
        "Notes/Other.md": "# Other\n",
        WS: json.dumps(ws, indent="\t"),  # as Obsidian writes it here: tabs, no final newline
    }


def _saved(vg: Harness, rel: str = WS) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(vg.read(rel))
    return data


def _expected(moves: dict[str, str], deleted: tuple[str, ...] = ()) -> dict[str, Any]:
    want = json.loads(json.dumps(WORKSPACE))
    want["lastOpenFiles"] = [moves.get(f, f) for f in want["lastOpenFiles"] if f not in deleted]
    return want


async def test_a_renamed_note_is_renamed_in_the_open_tabs_and_the_recent_files(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(_files())) as vg:
        await vg.indexed()
        before = vg.read(WS)
        preview = await vg.ok("rename_note", path="Projects/Plan.md", new_path="Plan v2", dry_run=True)
        assert preview["settings_updated"] == [WS] and vg.read(WS) == before  # a dry run changes nothing
        out = await vg.ok("rename_note", path="Projects/Plan.md", new_path="Plan v2")
        assert out["settings_updated"] == [WS]
        text = vg.read(WS)
        assert text.startswith('{\n\t"main": {\n\t\t"id": "m"') and not text.endswith("\n")  # tabs kept
        saved = _saved(vg)
        want = _expected({"Projects/Plan.md": "Projects/Plan v2.md"})
        tabs = want["main"]["children"][0]["children"]
        tabs[0]["state"]["state"]["file"], tabs[0]["state"]["title"] = "Projects/Plan v2.md", "Plan v2"
        want["right"]["children"][0]["children"][0]["state"]["state"]["file"] = "Projects/Plan v2.md"  # its title kept
        assert saved == want and list(saved) == list(WORKSPACE)  # every other key, in its order
        tab = (await vg.ok("get_workspace"))["active_file"]
        assert tab["path"] == "Projects/Plan v2.md" and tab["exists"]


async def test_a_folder_move_repoints_every_file_under_it(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(_files())) as vg:
        await vg.indexed()
        await vg.confirmed("move_note", path="Notes", new_path="Archive/Notes")
        assert _saved(vg)["lastOpenFiles"] == [
            "Projects/Plan.md",
            "Welcome.md",
            "Archive/Notes/Old.md",
            "Attachments/pic.png",
        ]


async def test_a_deleted_note_leaves_the_recent_files(make_vault: Callable[..., Path]) -> None:
    files = {**_files(), MOBILE: json.dumps({"main": {}, "lastOpenFiles": ["Welcome.md", "Notes/Old.md"]}, indent=2)}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("delete_note", path="Notes/Old.md")
        assert sorted(out["settings_updated"]) == sorted([WS, MOBILE])
        assert _saved(vg) == _expected({}, deleted=("Notes/Old.md",))
        assert _saved(vg, MOBILE)["lastOpenFiles"] == ["Welcome.md"]
        assert vg.read(MOBILE).startswith('{\n  "main"')  # two spaces kept
        calm = vg.read(WS)
        await vg.ok("delete_note", path="Notes/Other.md")  # named nowhere: the file is not touched
        assert vg.read(WS) == calm


@pytest.mark.parametrize("broken", ["{not json", "[]"])
async def test_a_malformed_workspace_never_fails_the_move(make_vault: Callable[..., Path], broken: str) -> None:
    async with started(make_vault({**_files(), WS: broken})) as vg:
        await vg.indexed()
        out = await vg.ok("rename_note", path="Welcome.md", new_path="Start")
        assert out["path"] == "Start.md" and out["settings_updated"] == [] and vg.read(WS) == broken
        await vg.ok("delete_note", path="Start")
        assert vg.read(WS) == broken


async def test_an_odd_recent_files_entry_is_kept_and_never_fails_the_move(make_vault: Callable[..., Path]) -> None:
    odd = json.dumps({"lastOpenFiles": [{"odd": 1}, "Welcome.md", "Start.md"]}, indent=2)
    async with started(make_vault({**_files(), WS: odd})) as vg:
        await vg.indexed()
        await vg.ok("rename_note", path="Welcome.md", new_path="Start")
        assert json.loads(vg.read(WS))["lastOpenFiles"] == [{"odd": 1}, "Start.md"]
        await vg.ok("delete_note", path="Start")
        assert json.loads(vg.read(WS))["lastOpenFiles"] == [{"odd": 1}]


def _refuse_workspace_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The OS refuses to write .obsidian/workspace.json (permissions, a full disk)."""
    real = files.write_in

    def refuse(folder_fd: int, name: str, data: bytes, **more: Any) -> Any:
        if more.get("rel") == WS:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(folder_fd, name, data, **more)

    monkeypatch.setattr(files, "write_in", refuse)


async def test_a_workspace_that_cannot_be_written_never_fails_the_move(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Permissions or a full disk on .obsidian/: the move and the delete still happen, the file stays."""
    _refuse_workspace_writes(monkeypatch)
    async with started(make_vault(_files())) as vg:
        await vg.indexed()
        before = vg.read(WS)
        out = await vg.ok("rename_note", path="Welcome.md", new_path="Start")
        assert out["path"] == "Start.md" and (vg.root / "Start.md").exists() and not (vg.root / "Welcome.md").exists()
        assert out["settings_updated"] == []  # planned, not written: not reported
        assert (await vg.ok("delete_note", path="Start"))["deleted"] and not (vg.root / "Start.md").exists()
        assert vg.read(WS) == before


async def test_a_workspace_obsidian_saved_without_the_note_is_not_reported_as_updated(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Obsidian saves its layout between the move's plan and its write, the renamed note no longer
    open nor recent: the file is left as Obsidian wrote it, and the result names only the files
    written (the mobile workspace here), not the ones the move planned to rewrite."""
    closed = {**WORKSPACE, "lastOpenFiles": ["Notes/Old.md"], "active": "a2"}
    closed["main"] = {"id": "m", "type": "split", "children": [], "direction": "vertical"}
    closed["right"] = {"id": "r", "type": "split", "children": [], "direction": "horizontal"}
    real = files.VaultFiles.write

    async def write(self: files.VaultFiles, vp: Any, *args: Any, **kwargs: Any) -> Any:
        if vp.rel == WS and not saved:
            saved.append(vp.rel)
            (self.paths.root / WS).write_text(json.dumps(closed, indent="\t"))  # Obsidian, just now
        return await real(self, vp, *args, **kwargs)

    saved: list[str] = []
    monkeypatch.setattr(files.VaultFiles, "write", write)
    async with started(make_vault({**_files(), MOBILE: json.dumps(WORKSPACE, indent=2)})) as vg:
        await vg.indexed()
        preview = await vg.ok("rename_note", path="Welcome.md", new_path="Start", dry_run=True)
        assert preview["settings_updated"] == sorted([WS, MOBILE])
        out = await vg.ok("rename_note", path="Welcome.md", new_path="Start")
        assert saved == [WS] and _saved(vg) == closed
        assert _saved(vg, MOBILE)["lastOpenFiles"][1] == "Start.md"
        assert out["settings_updated"] == [MOBILE]


async def test_plans_and_dry_run_vaults_list_the_workspace(make_vault: Callable[..., Path]) -> None:
    plan = {
        "goal": "file the plan away",
        "steps": [
            {"id": "mv", "tool": "move_note", "args": {"path": "Projects/Plan.md", "new_path": "Archive/Plan.md"}},
            {"id": "rm", "tool": "delete_note", "args": {"path": "Notes/Old.md"}},
        ],
    }
    root = make_vault(_files())
    async with started(root) as vg:
        await vg.indexed()
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        move = effects["files_moved"][0]
        assert WS in move["rewritten_in"] and WS in effects["files_modified"]
        await vg.confirmed("execute_plan", plan=plan)
        assert _saved(vg)["lastOpenFiles"] == ["Archive/Plan.md", "Welcome.md", "Attachments/pic.png"]
    (root / WS).write_text(json.dumps(WORKSPACE, indent="\t"))
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        preview = await vg.ok("delete_note", path="Welcome")
        assert preview["effects"]["files_deleted"] == ["Welcome.md"] and preview["effects"]["files_modified"] == [WS]


async def test_over_http_the_workspace_follows_a_rename(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(_files())) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            result = await client.call_tool("rename_note", {"path": "Welcome", "new_path": "Start"})
            assert not result.is_error and result.structured_content is not None
            assert result.structured_content["settings_updated"] == [WS]
            recent = await client.call_tool("list_recent_files", {})
            assert recent.structured_content is not None
            assert "Start.md" in [f["path"] for f in recent.structured_content["items"]]
        assert _saved(harness)["lastOpenFiles"][1] == "Start.md"


async def test_over_http_a_workspace_left_unwritten_is_not_reported(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    _refuse_workspace_writes(monkeypatch)
    async with e2e(make_vault({**_files(), MOBILE: json.dumps(WORKSPACE, indent=2)})) as (url, harness):
        await harness.indexed()
        before = harness.read(WS)
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            result = await client.call_tool("rename_note", {"path": "Welcome", "new_path": "Start"})
            assert not result.is_error and result.structured_content is not None
            assert result.structured_content["settings_updated"] == [MOBILE]
        assert harness.read(WS) == before and _saved(harness, MOBILE)["lastOpenFiles"][1] == "Start.md"


async def test_undo_of_a_move_leaves_a_workspace_obsidian_saved_since(make_vault: Callable[..., Path]) -> None:
    plan = {
        "goal": "g",
        "steps": [{"id": "mv", "tool": "rename_note", "args": {"path": "Welcome", "new_path": "Start"}}],
    }
    async with started(make_vault(_files())) as vg:
        await vg.indexed()
        await vg.ok("execute_plan", plan=plan)
        assert _saved(vg)["lastOpenFiles"][1] == "Start.md"
        saved = {**_saved(vg), "active": "a2"}  # Obsidian saves its layout again meanwhile
        (vg.root / WS).write_text(json.dumps(saved, indent="\t"))
        out = await vg.confirmed("undo_last_plan")
        assert out["conflicts"] == [] and (vg.root / "Welcome.md").is_file() and not (vg.root / "Start.md").exists()
        assert _saved(vg) == saved  # left as Obsidian wrote it
