"""A plan's rewrite_links step whose new target is no note, on disk or made by an earlier step:
the run fails it (`note_not_found`), so the check foresees that failure. Before, the step's dry
run answered `note_not_found` and the check dropped the code: validate_plan called the plan
valid and execute_plan ran it into the failure. A target an earlier step makes still passes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

REWRITE = {"id": "t", "tool": "rewrite_links", "args": {"old_target": "X", "new_target": "Y", "dry_run": False}}


async def test_a_rewrite_to_a_missing_note_is_foreseen_failing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "[[X]]\n"})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [REWRITE]})
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("t", "note_not_found")], checked
        assert [(f["step"], f["code"], f["path"]) for f in checked["effects"]["failures"]] == [
            ("t", "note_not_found", "Y.md")
        ]


async def test_a_rewrite_to_a_note_the_plan_makes_passes(make_vault: Callable[..., Path]) -> None:
    make = {"id": "c", "tool": "create_note", "args": {"path": "Inbox/Y", "content": "y\n"}}
    plan = {"goal": "g", "steps": [make, {**REWRITE, "dependsOn": ["c"]}]}
    async with started(make_vault({"A.md": "[[X]]\n"})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"] and checked["effects"]["failures"] == [], checked
        run = await vg.confirmed("execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert vg.read("A.md") == "[[Y]]\n"
