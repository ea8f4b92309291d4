"""A plan's move or rewrite_links step whose link rewrites depend on a note an earlier step makes:
validate_plan's effects and the confirmation execute_plan asks up front name every file the
confirmed run then changes, no more. The step's own dry run meets the vault as it is on disk:
before, a link to a note the plan makes (unresolved on disk) that a later move rewrites, and the
notes a rewrite to a note the plan makes edits, were missing from both, and the run changed them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

MAKE = {"id": "a", "tool": "create_note", "args": {"path": "New/Fresh", "content": "# F\n"}}
MOVES = {
    "the note": {"path": "New/Fresh", "new_path": "Archive/Fresh"},
    "its folder": {"path": "New", "new_path": "Archive/New"},
    "the note by its bare name": {"path": "Fresh", "new_path": "Archive/"},
}


def _plan(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"goal": "make, then act on it", "steps": [steps[0], *({**s, "dependsOn": ["a"]} for s in steps[1:])]}


async def _asked_then_run(vg: Harness, plan: dict[str, Any]) -> tuple[list[str], str, set[str]]:
    """The files and preview the confirmation names, then the files the confirmed run changes."""
    asked = await vg.err("execute_plan", "elicit_required", plan=plan)
    before = vg.snapshot()
    run = await vg.confirmed("execute_plan", plan=plan)
    assert run["status"] == "done", [s["errors"] for s in run["steps"]]
    return asked["details"]["files"], asked["details"]["preview"], vg.changed_since(before)


@pytest.mark.parametrize("move", list(MOVES.values()), ids=list(MOVES))
async def test_a_link_to_a_made_note_a_later_move_rewrites_is_asked(
    make_vault: Callable[..., Path], move: dict[str, str]
) -> None:
    plan = _plan(MAKE, {"id": "mv", "tool": "move_note", "args": move})
    async with started(make_vault({"Home.md": "see [[New/Fresh]]\n", "Archive/Old.md": "o\n"})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        [moved] = checked["effects"]["files_moved"]
        assert moved["rewritten_in"] == ["Home.md"] and moved["links_rewritten"] == 1, moved
        files, preview, changed = await _asked_then_run(vg, plan)
        assert set(files) == changed and "Home.md" in changed, (files, changed)
        assert "run time" not in preview, preview
        assert vg.read("Home.md") == "see [[Archive/Fresh]]\n" or vg.read("Home.md") == "see [[Archive/New/Fresh]]\n"


async def test_a_rewrite_to_a_note_the_plan_makes_lists_the_notes_it_edits(make_vault: Callable[..., Path]) -> None:
    make = {"id": "a", "tool": "create_note", "args": {"path": "Inbox/Y", "content": "y\n"}}
    rewrite = {"id": "t", "tool": "rewrite_links", "args": {"old_target": "X", "new_target": "Y", "dry_run": False}}
    plan = _plan(make, rewrite)
    async with started(make_vault({"A.md": "[[X]]\n", "B.md": "no link\n"})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        assert checked["effects"]["files_modified"] == ["A.md"], checked["effects"]
        files, preview, changed = await _asked_then_run(vg, plan)
        assert set(files) == changed == {"A.md", "Inbox/Y.md"}, (files, changed)
        assert "run time" not in preview, preview
        assert vg.read("A.md") == "[[Y]]\n"


@pytest.mark.parametrize("tool", ["rewrite_links", "rename_tag"])
async def test_a_rewrite_whose_dry_run_lists_its_notes_is_no_change_known_at_run_time(
    make_vault: Callable[..., Path], tool: str
) -> None:
    """Its notes are in the effects: the summary a human approves does not call the list of
    files incomplete (it listed the step under `bulk_changes`, files found at run time)."""
    args = {"old_target": "X", "new_target": "Y"} if tool == "rewrite_links" else {"old": "old", "new": "new"}
    plan = {"goal": "rewrite", "steps": [{"id": "t", "tool": tool, "args": {**args, "dry_run": False}}]}
    async with started(make_vault({"A.md": "[[X]] #old\n", "Y.md": "y\n"})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        effects = checked["effects"]
        assert effects["files_modified"] == ["A.md"] and effects["bulk_changes"] == [], effects
        files, preview, changed = await _asked_then_run(vg, plan)
        assert set(files) == changed == {"A.md"} and "run time" not in preview, (files, changed, preview)


async def test_a_made_note_sharing_a_moved_notes_name_is_seen_by_the_move(make_vault: Callable[..., Path]) -> None:
    """`[[Target]]` fits Target.md alone on disk: moved to Other/, it still fits the one note and
    the move's dry run rewrites nothing. Once an earlier step made Sub/Target.md, the bare link
    fits two notes and the run writes the moved note's path into it."""
    make = {"id": "a", "tool": "create_note", "args": {"path": "Sub/Target", "content": "s\n"}}
    move = {"id": "mv", "tool": "move_note", "args": {"path": "Target.md", "new_path": "Other/Target"}}
    plan = _plan(make, move)
    async with started(make_vault({"Target.md": "t\n", "Home.md": "[[Target]]\n"})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["effects"]["files_moved"][0]["rewritten_in"] == ["Home.md"], checked["effects"]
        files, _preview, changed = await _asked_then_run(vg, plan)
        assert set(files) == changed and "Home.md" in changed, (files, changed)
        assert vg.read("Home.md") == "[[Other/Target]]\n"


async def test_a_read_only_note_linking_a_made_note_is_foreseen_refusing_the_move(
    make_vault: Callable[..., Path],
) -> None:
    """The run's move refuses to leave the read-only note's link pointing at the old path
    (`vault_unwritable`): the check foresees it, and execute_plan refuses the plan whole."""
    root = make_vault({"Home.md": "see [[New/Fresh]]\n"})
    (root / "Home.md").chmod(0o444)
    plan = _plan(MAKE, {"id": "mv", "tool": "move_note", "args": MOVES["the note"]})
    async with started(root) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"]
        assert [(f["step"], f["code"]) for f in checked["effects"]["failures"]] == [("mv", "vault_unwritable")]
        before = vg.snapshot()
        await vg.err("execute_plan", "validation_error", plan=plan)
        assert vg.snapshot() == before
