"""A plan whose later steps work on what an earlier step's folder move left: validate_plan, the
confirmation a plan asks up front and the effects a human approves see the folder's notes at their
new paths and none at the old ones, as the run then finds them. Before, the check took the folder
for a note (`Proj` -> `Proj.md`): a note recreated at an old path was refused as `already_exists`,
a create onto a moved note was passed as valid, and an overwrite of a moved note was previewed as
a create and not asked up front (the run moved the folder, then stopped at the overwrite's own
`elicit_required`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

VAULT = {
    "Hub.md": "# Hub\n\n- [[Proj/A]]\n",
    "Proj/A.md": "# A\n\nprecious text\n",
    "Proj/B.md": "# B\n",
}


def _plan(*later: dict[str, Any], tool: str = "move_note", new_path: str = "Archive/Proj") -> dict[str, Any]:
    move = {"id": "mv", "tool": tool, "args": {"path": "Proj", "new_path": new_path}}
    return {"goal": "folder", "steps": [move, *({**s, "dependsOn": ["mv"]} for s in later)]}


async def test_an_overwrite_of_a_note_a_folder_rename_moved_is_asked_up_front(make_vault: Callable[..., Path]) -> None:
    args = {"path": "Projects/A", "mode": "overwrite", "content": "new\n"}
    overwrite = {"id": "ow", "tool": "write_note", "args": args}
    plan = _plan(overwrite, tool="rename_note", new_path="Projects")
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        effects = checked["effects"]
        assert effects["files_modified"] == ["Projects/A.md"] and effects["files_created"] == []
        before = vg.snapshot()
        asked = await vg.err("execute_plan", "elicit_required", plan=plan)  # once, before anything moves
        assert "modify (1): Projects/A.md" in asked["details"]["preview"]
        assert vg.snapshot() == before
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert vg.read("Projects/A.md") == "new\n" and not (vg.root / "Proj").exists()


async def test_a_note_recreated_at_a_moved_notes_old_path_is_a_create(make_vault: Callable[..., Path]) -> None:
    stub = {"id": "stub", "tool": "create_note", "args": {"path": "Proj/A", "content": "Now [[Projects/A]]\n"}}
    plan = _plan(stub, tool="rename_note", new_path="Projects")
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        assert checked["effects"]["files_created"] == ["Proj/A.md"] and checked["effects"]["failures"] == []
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert vg.read("Proj/A.md") == "Now [[Projects/A]]\n"
        assert vg.read("Projects/A.md") == "# A\n\nprecious text\n"


async def test_an_old_path_that_ends_a_moved_notes_new_one_names_that_note(make_vault: Callable[..., Path]) -> None:
    """`Proj/A` after `Proj` moved to `Archive/Proj` is `Archive/Proj/A.md`, as a wikilink finds
    it: the create is foreseen refused there, as the run refuses it."""
    stub = {"id": "stub", "tool": "create_note", "args": {"path": "Proj/A", "content": "x"}}
    plan = _plan(stub)
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        [failure] = checked["effects"]["failures"]
        assert (failure["step"], failure["code"], failure["path"]) == ("stub", "already_exists", "Archive/Proj/A.md")
        # the run, with the check's refusal of the step lifted (onError continue), meets the same
        run = await vg.confirmed("execute_plan", plan=_plan({**stub, "onError": "continue"}))
        [error] = run["steps"][1]["errors"]
        assert error["code"] == "already_exists" and "Archive/Proj/A.md" in error["message"]


async def test_a_create_onto_a_note_the_folder_move_brought_is_foreseen(make_vault: Callable[..., Path]) -> None:
    clash = {"id": "mk", "tool": "create_note", "args": {"path": "Archive/Proj/B", "content": "x"}}
    plan = _plan(clash)
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"]
        [failure] = checked["effects"]["failures"]
        assert (failure["step"], failure["code"], failure["path"]) == ("mk", "already_exists", "Archive/Proj/B.md")
        before = vg.snapshot()
        await vg.err("execute_plan", "validation_error", plan=plan)  # refused whole: nothing moved
        assert vg.snapshot() == before
