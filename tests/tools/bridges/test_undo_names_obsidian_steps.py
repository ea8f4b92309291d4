"""undo_last_plan of a run with steps that acted in Obsidian (a command, a template, a QuickAdd
choice, a tab) names those steps in `not_undone`: only vaultgate's own file changes are journaled,
so what Obsidian did stays (U10's s76 find: a plan's execute_template made a note, the undo put
back what vaultgate wrote and answered as if the run were reversed). Through the whole dispatch
chain against the Local REST API stand-in (its companion routes included)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.tools.bridges.test_bridge_refusals_before_running import plan, vault
from tests.tools.bridges.test_bridge_tools import api_key

__all__ = ["api_key"]  # the fixture that puts the key in the environment, used here too


async def test_the_undo_names_the_steps_that_acted_in_obsidian(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    async with vault(make_vault, tmp_path) as (vg, obsidian):
        steps = plan(
            {"tool": "create_note", "args": {"path": "Log/Day.md", "content": "# Day\n"}},
            {"tool": "execute_command", "args": {"command_id": "editor:save-file"}},
            {"tool": "execute_template", "args": {"template": "Meeting", "folder": "Projects", "filename": "Kickoff"}},
            {"tool": "read_note", "args": {"path": "Log/Day"}},
        )
        run = await vg.confirmed("execute_plan", plan=steps)
        assert run["status"] == "done", run
        assert obsidian.executed == ["editor:save-file"] and len(obsidian.created) == 1
        preview = await vg.ok("undo_last_plan", dry_run=True)
        acted = [(i["step"], i["tool"], i["calls"]) for i in preview["not_undone"]]
        assert acted == [("s1", "execute_command", 1), ("s2", "execute_template", 1)], preview
        assert preview["restored"] == ["Log/Day.md", "Log"]  # the note and the folder the run made
        undone = await vg.confirmed("undo_last_plan")
        assert [i["step"] for i in undone["not_undone"]] == ["s1", "s2"] and not (vg.root / "Log/Day.md").exists()
        # the undo run (a redo when undone) acted in nothing
        result = await vg.call("undo_last_plan", run_id=undone["undo_run_id"], dry_run=True)
        assert result.structured is not None and result.structured["not_undone"] == [], result.structured
