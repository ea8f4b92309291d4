"""validate_plan tells a step whose arguments the tool's input model refuses as the run does (E6
s85): one problem, the error the call answers (`invalid arguments for append_note: ...`, every issue
in `details.issues`, the tool's accepted arguments where one is none of its own, the
describe_capability hint). Before, each pydantic error was a problem of its own, its message only
("content: Field required"), and a read-only step the check runs was refused twice (its arguments,
then "read_note fails now"). Each plan's steps are then called one by one: the first refused is the
step validate_plan named, with that error, in a plan whose later step names what an earlier made too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started
from tests.tools.sessions.test_plan_refusals_told import _step, first_refused

PLANS: dict[str, list[dict[str, Any]]] = {
    "a required argument missing": [_step("a", "append_note", path="N.md")],
    "an argument the tool does not take": [_step("a", "append_note", path="N.md", content="x", note="N")],
    "several issues in one call": [_step("a", "create_note", path=5, content=["x"], if_exists="maybe")],
    "both path and folder": [_step("r", "replace_text", path="N.md", folder="Sub", find="a", replace="b")],
    "a read-only step": [_step("r", "read_note", path="N.md", bogus=1)],
    "a step on what an earlier made": [
        _step("c", "create_note", path="C.md", content="# One\n"),
        _step("p", "patch_note", path="$steps.c.path", heading=["One"], content="x", position="middle"),
    ],
}  # fmt: skip


async def test_a_step_s_invalid_arguments_are_one_problem_the_run_s_error(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"N.md": "# N\n"})) as vg:
        await vg.indexed()
        start = vg.snapshot()
        told: dict[str, dict[str, Any]] = {}
        for name, steps in PLANS.items():
            plan = {"goal": name, "steps": steps}
            checked = await vg.ok("validate_plan", plan=plan)
            assert len(checked["problems"]) == 1, (name, checked["problems"])
            told[name] = checked["problems"][0]
            refused = await vg.err("execute_plan", "validation_error", plan=plan)
            assert refused["details"]["problems"] == checked["problems"], refused
        assert vg.snapshot() == start  # nothing ran
        for name, steps in PLANS.items():
            ran = await first_refused(vg, steps)
            assert ran is not None, name
            step, error = ran
            problem = told[name]
            assert (problem["step"], problem["code"], problem["message"]) == (step, error["code"], error["message"])
            assert (problem["details"], problem["hint"]) == (error["details"], error["hint"]), (problem, error)
    assert len(told["several issues in one call"]["details"]["issues"]) == 3
    assert "note" not in told["an argument the tool does not take"]["details"]["accepted"]
    assert told["both path and folder"]["details"]["issues"][0]["field"] == "(arguments)"
