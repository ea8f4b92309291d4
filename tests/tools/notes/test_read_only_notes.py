"""A note made read-only (`chmod a-w`) is not changed by any write tool: each answers
`vault_unwritable` (details.reason `read_only_file`) and the vault is byte for byte as it was.

Before, an edit replaced the file by a rename, which the folder's permission allows, so the
note was edited although Obsidian's own save fails there with EACCES. A move, rename or delete is
refused too (`rm` asks before removing a write-protected file; the person who took the write
permission away meant "do not change it"). The suite runs as root, which the kernel lets write
anything: then a file no one has a write bit for is what is refused (`service.vault.readonly`);
tests/e2e/test_read_only_notes_e2e.py runs the server as another uid, where the kernel answers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, snapshot, started

NOTE = "---\ntags: [keep]\nstatus: final\n---\n# Signed\n\n## Terms\n\n- [ ] sign ^t1\n"
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("write_note", {"path": "Signed", "content": "replaced\n", "mode": "overwrite"}),
    ("write_note", {"path": "Signed", "content": "more\n", "mode": "append"}),
    ("append_note", {"path": "Signed", "content": "more"}),
    ("prepend_note", {"path": "Signed", "content": "first"}),
    ("patch_note", {"path": "Signed", "heading": ["Signed", "Terms"], "content": "added\n"}),
    ("set_properties", {"path": "Signed", "properties": {"status": "draft"}}),
    ("delete_property", {"path": "Signed", "key": "status"}),
    ("add_tags", {"path": "Signed", "tags": ["more"]}),
    ("remove_tags", {"path": "Signed", "tags": ["keep"]}),
    ("set_task_status", {"path": "Signed", "line": 9, "status": "x", "expected_text": "sign"}),
    ("copy_note", {"path": "Other", "new_path": "Signed", "overwrite": True}),
    ("move_note", {"path": "Signed", "new_path": "Archive/Signed.md"}),
    ("rename_note", {"path": "Signed", "new_path": "Renamed"}),
    ("delete_note", {"path": "Signed"}),
    ("delete_note", {"path": "Signed", "permanent": True}),
]


async def _refused(vg: Harness, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The call's error: `vault_unwritable` at once, never a human asked to approve a change that
    cannot be made (a move, a permanent delete, an overwrite ask one first)."""
    return await vg.err(tool, "vault_unwritable", **args)


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CALLS)])
async def test_a_read_only_note_is_not_changed(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    root = make_vault({"Signed.md": NOTE, "Other.md": "# Other\n", "Links.md": "See [[Signed]].\n"})
    (root / "Signed.md").chmod(0o444)
    async with started(root) as vg:
        await vg.indexed()
        before = snapshot(root)
        error = await _refused(vg, tool, args)
        assert error["code"] == "vault_unwritable", error
        assert error["details"]["reason"] == "read_only_file" and error["details"]["path"] == "Signed.md", error
        assert "read-only" in error["message"] and "chmod u+w" in error["hint"]
        assert snapshot(root) == before


async def test_a_note_given_its_write_permission_back_is_changed(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Signed.md": NOTE})
    (root / "Signed.md").chmod(0o444)
    async with started(root) as vg:
        await vg.err("append_note", "vault_unwritable", path="Signed", content="more")
        (root / "Signed.md").chmod(0o644)
        await vg.ok("append_note", path="Signed", content="more")
        assert vg.read("Signed.md").endswith("^t1\nmore")


async def test_a_move_whose_links_are_in_a_read_only_note_is_refused(make_vault: Callable[..., Path]) -> None:
    """Moving a note a read-only note links to would leave that link pointing at the old path (its
    rewrite is refused): the move is refused before anything moves, naming the read-only note."""
    root = make_vault({"Signed.md": "See [[Hub/Other]].\n", "Hub/Other.md": "# Other\n", "Open.md": "[[Hub/Other]]\n"})
    (root / "Signed.md").chmod(0o444)
    async with started(root) as vg:
        await vg.indexed()
        before = snapshot(root)
        for tool, args in (
            ("move_note", {"path": "Hub/Other", "new_path": "Archive/Other.md"}),
            ("rename_note", {"path": "Hub/Other", "new_path": "Renamed"}),
        ):
            error = await _refused(vg, tool, args)
            assert (error["code"], error["details"]["path"]) == ("vault_unwritable", "Signed.md"), error
            assert snapshot(root) == before
        (root / "Signed.md").chmod(0o644)
        await vg.confirmed("move_note", path="Hub/Other", new_path="Archive/Other.md")
        assert vg.read("Signed.md") == "See [[Archive/Other]].\n"


PLAN = {
    "goal": "log, then tag the signed note",
    "steps": [
        {"id": "log", "tool": "append_note", "args": {"path": "Other", "content": "tagged it"}},
        {"id": "tag", "tool": "add_tags", "args": {"path": "Signed", "tags": ["done"]}, "dependsOn": ["log"]},
    ],
}


async def test_a_plan_changing_a_read_only_note_is_refused_up_front(make_vault: Callable[..., Path]) -> None:
    """validate_plan foresees the step's refusal, and execute_plan runs nothing: before, the plan
    was valid, a human approved it, and the run changed Other.md, then failed at the tag step."""
    root = make_vault({"Signed.md": NOTE, "Other.md": "# Other\n"})
    (root / "Signed.md").chmod(0o444)
    async with started(root) as vg:
        await vg.indexed()
        before = snapshot(root)
        checked = await vg.ok("validate_plan", plan=PLAN)
        assert not checked["valid"], checked
        [failure] = checked["effects"]["failures"]
        assert (failure["step"], failure["code"], failure["path"]) == ("tag", "vault_unwritable", "Signed.md")
        assert [p["code"] for p in checked["problems"]] == ["vault_unwritable"]
        refused = await vg.err("execute_plan", "validation_error", plan=PLAN)
        assert [p["code"] for p in refused["details"]["problems"]] == ["vault_unwritable"]
        assert snapshot(root) == before


MOVE_PLAN = {
    "goal": "log, then move the hub",
    "steps": [
        {"id": "log", "tool": "append_note", "args": {"path": "Open", "content": "moving it"}},
        {"id": "move", "tool": "move_note", "args": {"path": "Hub/Other", "new_path": "Archive/Other.md"}},
        {
            "id": "fix",
            "tool": "rewrite_links",
            "args": {"old_target": "Hub/Other", "new_target": "Open", "dry_run": False},
        },
    ],
}


@pytest.mark.parametrize("stop", ["move", "fix"])
async def test_a_plan_whose_move_or_rewrite_meets_a_read_only_link_is_refused_up_front(
    make_vault: Callable[..., Path], stop: str
) -> None:
    """A move (or a link rewrite) whose link rewrites would edit a read-only note is refused at run
    time; validate_plan foresees it from the step's own dry run (before, the plan was valid and
    its run changed Open.md, then failed at the move or the rewrite)."""
    root = make_vault({"Signed.md": "See [[Hub/Other]].\n", "Hub/Other.md": "# Other\n", "Open.md": "[[Hub/Other]]\n"})
    (root / "Signed.md").chmod(0o444)
    plan = {**MOVE_PLAN, "steps": [s for s in MOVE_PLAN["steps"] if s["id"] in ("log", stop)]}
    async with started(root) as vg:
        await vg.indexed()
        before = snapshot(root)
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"], checked
        [failure] = checked["effects"]["failures"]
        named = "Hub/Other.md" if stop == "move" else "Signed.md"  # the move's own note; the note a rewrite edits
        assert (failure["step"], failure["code"], failure["path"]) == (stop, "vault_unwritable", named)
        refused = await vg.err("execute_plan", "validation_error", plan=plan)
        assert [p["code"] for p in refused["details"]["problems"]] == ["vault_unwritable"]
        assert snapshot(root) == before
        (root / "Signed.md").chmod(0o644)
        assert (await vg.ok("validate_plan", plan=plan))["effects"]["failures"] == []


async def test_a_dry_run_vault_previews_the_refusal(make_vault: Callable[..., Path]) -> None:
    """A vault in write_mode dry-run answers a call with what it would do: for a read-only note,
    the refusal the call would answer (before, a preview of an edit that could never happen)."""
    root = make_vault({"Signed.md": NOTE, "Other.md": "# Other\n"})
    (root / "Signed.md").chmod(0o444)
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        before = snapshot(root)
        for tool, args in (
            ("append_note", {"path": "Signed", "content": "more"}),
            ("set_properties", {"path": "Signed", "properties": {"status": "draft"}}),
            ("delete_note", {"path": "Signed"}),
            ("move_note", {"path": "Signed", "new_path": "Archive/"}),
        ):
            error = await vg.err(tool, "vault_unwritable", **args)
            assert error["details"]["path"] == "Signed.md", (tool, error)
        previewed = await vg.ok("append_note", path="Other", content="more")
        assert previewed["dry_run"] and previewed["effects"]["files_modified"] == ["Other.md"]
        assert snapshot(root) == before


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("rewrite_links", {"old_target": "Hub/Other", "new_target": "Open", "dry_run": False}),
        ("rename_tag", {"old": "keep", "new": "kept", "dry_run": False}),
    ],
)
async def test_a_rewrite_meeting_a_read_only_note_is_refused_before_a_human_is_asked(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    """rewrite_links and rename_tag asked a human to approve a change whose write of the read-only
    note was then refused (and undone); now they answer `vault_unwritable` naming it, first."""
    root = make_vault(
        {"Signed.md": "See [[Hub/Other]]. #keep\n", "Hub/Other.md": "# Other\n", "Open.md": "[[Hub/Other]] #keep\n"}
    )
    (root / "Signed.md").chmod(0o444)
    async with started(root) as vg:
        await vg.indexed()
        before = snapshot(root)
        error = await _refused(vg, tool, args)
        assert (error["details"]["path"], error["details"]["reason"]) == ("Signed.md", "read_only_file"), error
        assert snapshot(root) == before
        (root / "Signed.md").chmod(0o644)
        await vg.confirmed(tool, **args)  # writable again: the change is made
        assert vg.read("Signed.md").encode() != before["Signed.md"]
