"""A plan's read step that meets a transient error when the plan is checked (Obsidian closed or
slow: plugin_unreachable, retryable) and asks for retries is left to the run, whose retries may
get past it: the check refused the plan whole with validation_error, retryable false (U10's s76
find). A step without retries is still refused by its check, as before. Through the whole dispatch
chain, with the bridge pointed at a port where no Obsidian answers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.tools.bridges.test_bridge_tools import api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too

RETRY = {"attempts": 3, "backoffMs": 10}


async def test_a_read_step_with_retries_is_left_to_the_run(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    async with bridged(make_vault, tmp_path, url="https://127.0.0.1:9", timeout_s=1.0) as (vg, _):
        direct = await vg.call("list_commands")
        assert direct.is_error and direct.structured is not None
        assert direct.structured["error"]["code"] == "plugin_unreachable" and direct.structured["error"]["retryable"]
        retried = {"goal": "g", "steps": [{"id": "c", "tool": "list_commands", "args": {}, "retry": RETRY}]}
        checked = await vg.ok("validate_plan", plan=retried)
        assert checked["valid"] is True, checked["problems"]
        run = await vg.ok("execute_plan", plan=retried)  # runs: Obsidian still closed, every attempt fails
        [step] = run["steps"]
        assert run["status"] == "failed" and step["calls"] == 1 and step["failed_calls"] == 1, run
        assert step["errors"][0]["code"] == "plugin_unreachable", step
        once = {"goal": "g", "steps": [{"id": "c", "tool": "list_commands", "args": {}}]}
        checked = await vg.ok("validate_plan", plan=once)
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("c", "plugin_unreachable")], checked
