"""Every tool that creates a file refuses a case twin of a file or folder that is there, as
create_note does (`already_exists`): `notes/Alpha.md` beside `notes/alpha.md` is one file on macOS
and Windows and one name to Obsidian's links (T1 s62 #5b: copy_note and bulk_create_notes made
them). One check in the file layer (`service.vault.casing`) covers every creator."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.vault.casing import case_twin, fold
from tests.conftest import e2e, started

CANVAS = json.dumps({"nodes": [], "edges": []})
VAULT: dict[str, str | bytes] = {
    "notes/alpha.md": "# alpha\n",
    "Home.md": "# Home\n",
    "daily/2020-01-01.md": "# old\n",
    "Templates/T.md": "# from template\n",
    "Boards/plan.canvas": CANVAS,
    "Drawings/sketch.excalidraw.md": "# sketch\n",
    "Memory/Alice.md": "---\nname: Alice\ntype: person\n---\n",
    ".obsidian/daily-notes.json": json.dumps({"folder": "Daily", "format": "YYYY-MM-DD"}),
}


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".obsidian" not in p.parts)


@pytest.mark.parametrize(
    ("tool", "args", "twin"),
    [
        ("copy_note", {"path": "Home", "new_path": "notes/Alpha"}, "notes/alpha.md"),
        ("copy_note", {"path": "Home", "new_path": "Notes/Beta"}, "notes"),
        ("create_note", {"path": "Notes/Gamma", "content": "x"}, "notes"),
        ("write_note", {"path": "Notes/Gamma", "content": "x"}, "notes"),
        ("append_note", {"path": "Notes/Gamma", "content": "x", "create_if_missing": True}, "notes"),
        ("create_folder", {"path": "NOTES"}, "notes"),
        ("apply_template", {"template": "T", "path": "Notes/From T"}, "notes"),
        ("write_canvas", {"path": "Boards/Plan.canvas", "nodes": [], "create_only": True}, "Boards/plan.canvas"),
        ("write_canvas", {"path": "boards/new.canvas", "nodes": []}, "Boards"),
        ("write_excalidraw", {"path": "drawings/new", "elements": []}, "Drawings"),
        ("create_periodic_note", {"period": "daily", "date": "2026-01-02"}, "daily"),
        ("create_entities", {"entities": [{"name": "x", "entityType": "t"}]}, None),
    ],
)
async def test_a_create_beside_a_case_twin_is_already_exists(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any], twin: str | None
) -> None:
    root = make_vault(VAULT)
    async with started(root) as vg:
        if tool == "create_entities":  # `alice` beside the entity `Alice`
            await vg.ok("create_entities", entities=[{"name": "Bob", "entityType": "person"}])
            before = _files(root)
            error = await vg.err(tool, "already_exists", entities=[{"name": "alice", "entityType": "person"}])
            assert error["details"]["path"] == "Memory/Alice.md", error
        else:
            before = _files(root)
            error = await vg.err(tool, "already_exists", **args)
            assert error["details"]["path"] == twin, error
        assert _files(root) == before  # nothing made, no folder either


async def test_bulk_create_refuses_a_twin_on_disk_and_one_of_its_own(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with started(root) as vg:
        before = _files(root)
        error = await vg.err("bulk_create_notes", "already_exists", notes=[{"path": "New"}, {"path": "notes/Alpha"}])
        assert error["details"]["path"] == "notes/alpha.md"
        error = await vg.err("bulk_create_notes", "already_exists", notes=[{"path": "B/Twin"}, {"path": "B/twin"}])
        assert error["details"] == {"path": "B/Twin.md", "new_path": "B/twin.md"}
        error = await vg.err("bulk_create_notes", "already_exists", notes=[{"path": "C/x"}, {"path": "c/y"}])
        assert error["details"]["path"] == "C"
        assert _files(root) == before
        await vg.ok("bulk_create_notes", notes=[{"path": "B/Twin"}, {"path": "B/Other"}])  # a plain batch still works


async def test_a_plan_step_that_would_make_a_twin_fails_and_writes_nothing(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with started(root) as vg:
        before = _files(root)
        step = {"id": "c", "tool": "copy_note", "args": {"path": "Home", "new_path": "notes/Alpha"}}
        error = await vg.err("execute_plan", "validation_error", plan={"goal": "copy", "steps": [step]})
        (problem,) = error["details"]["problems"]  # foreseen by the plan's check: refused before any step runs
        assert problem["code"] == "already_exists" and problem["step"] == "c", problem
        assert problem["details"] == {"path": "notes/alpha.md", "new_path": "notes/Alpha.md"}, problem
        assert _files(root) == before


async def test_what_stays_allowed(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("create_note", path="notes/beta", content="b")  # into the folder as spelled
        await vg.ok("append_note", path="notes/ALPHA", content="more\n")  # the note itself, by a name
        assert vg.read("notes/alpha.md") == "# alpha\nmore\n"
        await vg.ok("create_note", path="notes/Alphabet", content="c")  # a longer name is no twin
        await vg.ok("rename_note", path="notes/beta", new_path="Beta", dry_run=False)  # letter case of itself
        assert "notes/Beta.md" in _files(root) and "notes/beta.md" not in _files(root)


def test_the_shared_check(tmp_path: Path) -> None:
    (tmp_path / "Straße").mkdir()
    (tmp_path / "Straße" / "Café.md").write_text("x")
    assert case_twin(tmp_path, "STRAßE/new.md") == "Straße"
    assert case_twin(tmp_path, "STRASSE/new.md") is None  # ß is no capital of ss (Obsidian's toLowerCase)
    assert case_twin(tmp_path, "Straße/CAFÉ.md") == "Straße/Café.md"
    (tmp_path / "Straße" / "Re\u0301sume\u0301.md").write_text("x")  # named in NFD (macOS)
    assert case_twin(tmp_path, "Straße/R\u00e9sum\u00e9.md") is None  # that file itself, in NFC
    assert case_twin(tmp_path, "Straße/R\u00c9SUM\u00c9.md") == "Straße/R\u00e9sum\u00e9.md"
    assert case_twin(tmp_path, "Straße/Café.md") is None  # there as spelled: not a create
    assert case_twin(tmp_path, "Other/café.md") is None
    assert fold("ΣΊΣΥΦΟΣ") == fold("σίσυφος")


async def test_over_http_copy_and_bulk_refuse_twins(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with e2e(root) as (url, _h), Client(url) as client:
        for tool, args in [
            ("copy_note", {"path": "Home", "new_path": "notes/Alpha"}),
            ("bulk_create_notes", {"notes": [{"path": "B/Twin", "content": "1"}, {"path": "B/twin", "content": "2"}]}),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and result.structured_content is not None, tool
            assert result.structured_content["error"]["code"] == "already_exists", result.structured_content
        assert "notes/Alpha.md" not in _files(root) and not (root / "B").exists()


async def test_bulk_reads_a_folder_once_for_its_own_check(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 20 new notes into one folder: the batch's check lists it once (the file layer's check, at
    # each write, once per note), not once more per note (2 x 20 before)
    from service.vault import casing

    listed: list[str] = []
    real = casing.os.listdir

    def counting(folder: str) -> list[str]:
        if sys._getframe(1).f_globals.get("__name__") == casing.__name__:  # os.listdir is everyone's:
            listed.append(folder)  # a listing by the index or the watcher meanwhile is not counted
        return real(folder)

    root = make_vault({"Inbox/old.md": "x", **{f"Inbox/n{i}.md": "x" for i in range(200)}})
    async with started(root) as vg:
        monkeypatch.setattr(casing.os, "listdir", counting)
        await vg.ok("bulk_create_notes", notes=[{"path": f"Inbox/new {i}", "content": "x"} for i in range(20)])
    assert len(listed) == 20 + 1, len(listed)


@pytest.mark.parametrize("source", ["a/Alpha.md", "a/ALPHA.md"])
@pytest.mark.parametrize("tool", ["move_note", "rename_note"])
async def test_a_case_rename_beside_twins_on_disk_is_refused_whichever_the_folder_lists_first(
    make_vault: Callable[..., Path], source: str, tool: str
) -> None:
    """Twins already on disk (a vault synced from Linux): a case-only rename of either one to a
    third spelling would leave two twins; it was refused or done by the folder's listing order,
    and its preview said yes to both (review R1 s63 F8). Now both refuse, preview and move alike."""
    root = make_vault({"a/Alpha.md": "# one\n", "a/ALPHA.md": "# two\n", "a/x.md": "x\n"})
    async with started(root) as vg:
        before = _files(root)
        for dry_run in (True, False):
            error = await vg.err(tool, "already_exists", path=source, new_path="a/alpha.md", dry_run=dry_run)
            assert error["details"]["new_path"] == "a/alpha.md", (dry_run, error)
            assert _files(root) == before
        await vg.ok(tool, path=source, new_path="a/Other.md", dry_run=False)  # another name still moves
