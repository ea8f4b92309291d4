"""A patch_note step with no target (no heading, block or anchor, and no '#…' in its path) is
refused by validate_plan, as the call refuses it. Before, its arguments passed the input model, so
validate_plan answered valid and the plan's preview listed the note as modified; execute_plan then
ran the earlier steps and stopped at the patch with `validation_error` ('give exactly one target'),
leaving the plan half done. A vault in dry-run mode previewed the call as a change too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

PLAN = {
    "goal": "log, then add a line to the log",
    "steps": [
        {"id": "mk", "tool": "create_note", "args": {"path": "Log", "content": "# Log\n"}},
        {"id": "p", "tool": "patch_note", "args": {"path": "Log", "content": "more", "position": "append"}},
    ],
}


async def test_a_patch_without_a_target_is_refused_before_the_plan_runs(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        checked = await vg.ok("validate_plan", plan=PLAN)
        assert not checked["valid"]
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("p", "validation_error")], checked
        assert "exactly one target" in checked["problems"][0]["message"]
        before = vg.snapshot()
        await vg.err("execute_plan", "validation_error", plan=PLAN)
        assert vg.snapshot() == before  # no step ran: no Log.md
        by_section = {
            **PLAN,
            "steps": [PLAN["steps"][0], {**PLAN["steps"][1], "args": {"path": "Log#Log", "content": "x"}}],
        }
        checked = await vg.ok("validate_plan", plan=by_section)  # the '#…' names the target
        assert checked["valid"], checked["problems"]
        run = await vg.ok("execute_plan", plan=by_section)
        assert run["status"] == "done" and vg.read("Log.md") == "# Log\nx\n", (run, vg.read("Log.md"))


async def test_a_dry_run_vault_answers_a_patch_without_a_target_as_the_call_does(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        error = await vg.err("patch_note", "validation_error", path="Home", content="x")
        assert error["details"]["reason"] == "no_target", error
        out = await vg.ok("patch_note", path="Home", heading=["Home"], content="x")
        assert out["dry_run"] is True
