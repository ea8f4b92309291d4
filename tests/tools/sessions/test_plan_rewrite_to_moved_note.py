"""A plan's applied rewrite_links whose new target an earlier step moved, and a move step whose
arguments name no move: validate_plan and the confirmation execute_plan asks stay true.

Vault {X.md, Y.md, A.md: '[[X]]'}, plan [move_note Y.md -> Sub/Y, rewrite_links X -> Y]: the run
finds 'Y' at Sub/Y.md and rewrites A.md, but the check planned the rewrite towards Y.md, which the
move had taken away, found no note to edit, and listed neither A.md in files_modified nor the step
in bulk_changes: the confirmation named Sub/Y.md and Y.md as every file the run changes. And a
move_note or rename_note step without a string new_path (a misspelt argument: 'new_name') made
validate_plan answer internal_error instead of the plan's validation problems."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

MOVE_Y = {"id": "a", "tool": "move_note", "args": {"path": "Y.md", "new_path": "Sub/Y"}}
REWRITE = {"id": "b", "tool": "rewrite_links", "args": {"old_target": "X", "new_target": "Y", "dry_run": False}}
VAULT = {"X.md": "x\n", "Y.md": "y\n", "A.md": "[[X]]\n"}


async def test_a_rewrite_to_a_note_an_earlier_step_moved_lists_the_notes_it_edits(
    make_vault: Callable[..., Path],
) -> None:
    plan = {"goal": "move, then point links at it", "steps": [MOVE_Y, {**REWRITE, "dependsOn": ["a"]}]}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        assert checked["effects"]["files_modified"] == ["A.md"], checked["effects"]
        asked = await vg.err("execute_plan", "elicit_required", plan=plan)
        before = vg.snapshot()
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done", [s["errors"] for s in run["steps"]]
        changed = vg.changed_since(before)
        assert set(asked["details"]["files"]) == changed == {"A.md", "Y.md", "Sub/Y.md"}, asked["details"]["files"]
        assert vg.read("A.md") in ("[[Y]]\n", "[[Sub/Y]]\n")


async def test_a_rewrite_to_a_path_an_earlier_step_moved_away_is_foreseen_failing(
    make_vault: Callable[..., Path],
) -> None:
    """'D/Y' names a path, which the move empties: the run's rewrite fails (note_not_found)."""
    move = {**MOVE_Y, "args": {"path": "D/Y.md", "new_path": "Sub/Y"}}
    rewrite = {**REWRITE, "args": {**REWRITE["args"], "new_target": "D/Y"}, "dependsOn": ["a"]}
    async with started(make_vault({"X.md": "x\n", "D/Y.md": "y\n", "A.md": "[[X]]\n"})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [move, rewrite]})
        assert not checked["valid"]
        assert [p["step"] for p in checked["problems"]] == ["b"], checked["problems"]


@pytest.mark.parametrize("tool", ["move_note", "rename_note"])
async def test_a_move_step_naming_no_move_is_a_validation_problem(make_vault: Callable[..., Path], tool: str) -> None:
    steps = [{"id": "b", "tool": tool, "args": {"path": "A.md", "new_name": "Z"}}]
    async with started(make_vault({"A.md": "a\n", "Home.md": "[[A]]\n"})) as vg:
        await vg.indexed()
        before = vg.snapshot()
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": steps})
        assert not checked["valid"]
        assert {(p["step"], p["code"]) for p in checked["problems"]} == {("b", "validation_error")}, checked
        await vg.err("execute_plan", "validation_error", plan={"goal": "g", "steps": steps})
        assert vg.snapshot() == before


async def test_a_rewrite_to_a_note_an_earlier_step_deleted_is_known_at_run_time(
    make_vault: Callable[..., Path],
) -> None:
    """[delete_note Y.md, rewrite_links X -> Y]: which note named Y the run finds (none here: it
    fails, note_not_found) is known only at run time. The check listed A.md as a file the plan
    modifies, from the dry run on disk, and nothing as known only at run time."""
    delete = {"id": "a", "tool": "delete_note", "args": {"path": "Y.md"}}
    plan = {"goal": "g", "steps": [delete, {**REWRITE, "dependsOn": ["a"]}]}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert "A.md" not in checked["effects"]["files_modified"], checked["effects"]
        assert checked["effects"]["bulk_changes"] == ["b: rewrite_links"], checked["effects"]


async def test_a_rewrite_to_a_name_another_note_still_has_after_a_delete_lists_its_notes(
    make_vault: Callable[..., Path],
) -> None:
    """[delete_note Y.md, rewrite_links X -> Y] beside Sub/Y.md: the run finds 'Y' there."""
    delete = {"id": "a", "tool": "delete_note", "args": {"path": "Y.md"}}
    plan = {"goal": "g", "steps": [delete, {**REWRITE, "dependsOn": ["a"]}]}
    async with started(make_vault({**VAULT, "Sub/Y.md": "other y\n"})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        asked = await vg.err("execute_plan", "elicit_required", plan=plan)
        before = vg.snapshot()
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done", [s["errors"] for s in run["steps"]]
        assert checked["effects"]["bulk_changes"] == ["b: rewrite_links"], checked["effects"]
        changed = vg.changed_since(before)
        assert "A.md" in changed and "A.md" not in asked["details"]["files"], (asked["details"], changed)
