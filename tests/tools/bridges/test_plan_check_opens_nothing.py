"""validate_plan and execute_plan's check made a plan's read-only calls through the dispatch chain
to learn their results, open_in_obsidian among them, which opens a tab in the running Obsidian:
validating a plan opened its notes, and execute_plan opened each twice more (U10's s76 find). A
call that acts in Obsidian (scope class `execute`) is not made by a check now: only what it refuses
from the configuration alone (no bridge: plugin_missing) is told, and the run opens it once.
Through the whole dispatch chain against the Local REST API stand-in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.tools.bridges.test_bridge_tools import api_key, bridged

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too

OPEN = {"id": "open", "tool": "open_in_obsidian", "args": {"path": "Index", "new_leaf": True}}
READ = {"id": "read", "tool": "read_note", "args": {"path": "Index"}}
PLAN = {"goal": "show", "steps": [OPEN, READ]}


async def test_checking_a_plan_opens_nothing_and_the_run_opens_once(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    async with bridged(make_vault, tmp_path) as (vg, obsidian):
        checked = await vg.ok("validate_plan", plan=PLAN)
        assert checked["valid"] is True, checked["problems"]
        assert obsidian.opened == []
        run = await vg.ok("execute_plan", plan=PLAN)
        assert run["status"] == "done", run
    assert obsidian.opened == [("Index.md", "newLeaf=true")]


async def test_a_plan_that_opens_a_note_without_a_bridge_is_refused_by_its_check(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Index.md": "# Index\n"})) as vg:
        checked = await vg.ok("validate_plan", plan=PLAN)
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("open", "plugin_missing")], checked
