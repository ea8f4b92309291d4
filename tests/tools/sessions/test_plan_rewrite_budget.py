"""A plan step whose rewrite plan outlasts `[limits] max_rewrite_seconds` (a tag rename, a
replacement, a rename) is refused at run time as its own dry run is: validate_plan says so as a
problem of that step (code compute_budget_exceeded), and execute_plan refuses the plan before
anything is written (G3 s88). Before, the check took the refused dry run for "files known only at
run time" (a bulk change): the plan was valid, and its run stopped at that step.

The plan clock is a fake one moving a second each time it is read (`service.graph.plan_clock.now`):
with a budget of 2.5 s a plan of 6 notes is found spent after the third, whatever the load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.graph import plan_clock
from tests.conftest import started, write_files
from tests.ticks import Ticks

STEPS: dict[str, dict[str, Any]] = {
    "rename_tag": {"tool": "rename_tag", "args": {"old": "proj", "new": "project", "dry_run": False}},
    "replace_text": {"tool": "replace_text", "args": {"find": "old word", "replace": "new", "dry_run": False}},
    "rename_note": {"tool": "rename_note", "args": {"path": "Hub.md", "new_path": "Hub2"}},
}


@pytest.mark.parametrize("tool", list(STEPS))
async def test_a_step_past_its_plan_budget_is_a_problem_of_the_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    write_files(root, {"Hub.md": "# Hub\n", **{f"n{i}.md": "About #proj, [[Hub]], the old word.\n" for i in range(6)}})
    plan = {"goal": "budget", "steps": [{"id": "s", **STEPS[tool]}]}
    async with started(root, limits={"max_rewrite_seconds": 2.5}) as vg:
        await vg.indexed()
        before = vg.snapshot()
        monkeypatch.setattr(plan_clock, "now", Ticks(), raising=False)
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"], checked
        [problem] = checked["problems"]
        assert (problem["step"], problem["code"]) == ("s", "compute_budget_exceeded"), problem
        assert "max_rewrite_seconds" in problem["message"], problem
        err = await vg.err("execute_plan", "validation_error", plan=plan)
        assert [p["code"] for p in err["details"]["problems"]] == ["compute_budget_exceeded"], err
        assert vg.changed_since(before) == set()
