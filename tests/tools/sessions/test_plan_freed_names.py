"""A plan step naming a note by the name whose path as written an earlier step deleted or moved
away: the run finds the note by its name then (`X` is `Sub/X.md` once `X.md` is gone), and so
do validate_plan's effects and the confirmation a human approves. Before, the check kept the
path as written (`X.md`, gone by then) and refused the plan as failing there (`note_not_found`),
a plan whose run succeeds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

DELETE = {"id": "d", "tool": "delete_note", "args": {"path": "X.md"}}
MOVE = {"id": "d", "tool": "move_note", "args": {"path": "X.md", "new_path": "Archive/Old X"}}
APPEND = {"id": "ap", "tool": "append_note", "args": {"path": "X", "content": "more\n"}, "dependsOn": ["d"]}


def _changed(before: dict[str, Any], after: dict[str, Any], vault: str) -> set[str]:
    return {
        k[len(vault) + 1 :] for k in set(before) | set(after) if before.get(k) != after.get(k) and not k.endswith("/")
    }


async def _run(vg: Harness, plan: dict[str, Any], effects: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The files the human is shown (the confirmation's, or the effects' when none is asked), and
    those the run changed."""
    before = vg.snapshot()
    first = await vg.call("execute_plan", plan=plan)
    if first.is_error:
        asked = set(first.structured["error"]["details"]["files"])
        run = await vg.confirmed("execute_plan", plan=plan)
    else:
        moved = {p for m in effects["files_moved"] for p in (m["from"], m["to"])}
        asked = {*effects["files_created"], *effects["files_modified"], *effects["files_deleted"], *moved}
        run = first.structured
    assert run["status"] == "done", [s["errors"] for s in run["steps"]]
    return asked, _changed(before, vg.snapshot(), vg.root.name)


@pytest.mark.parametrize("first", [DELETE, MOVE], ids=["deleted", "moved"])
async def test_a_name_whose_file_a_step_removed_names_the_note_the_run_finds(
    make_vault: Callable[..., Path], first: dict[str, Any]
) -> None:
    plan = {"goal": "g", "steps": [first, APPEND]}
    async with started(make_vault({"X.md": "top\n", "Sub/X.md": "sub\n"})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        assert checked["effects"]["files_modified"] == ["Sub/X.md"], checked["effects"]
        asked, changed = await _run(vg, plan, checked["effects"])
        assert asked == changed and "Sub/X.md" in changed
        assert vg.read("Sub/X.md") == "sub\nmore\n"


async def test_a_name_nothing_else_carries_is_still_foreseen_missing(make_vault: Callable[..., Path]) -> None:
    plan = {"goal": "g", "steps": [DELETE, APPEND]}
    async with started(make_vault({"X.md": "top\n", "Other.md": "o\n"})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("ap", "note_not_found")]
