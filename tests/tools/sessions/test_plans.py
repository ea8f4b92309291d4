"""Action plans through the full dispatch chain: validate, execute, undo back to the same bytes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import snapshot, started
from tests.plan_vault import NOTES, big_plan, plan_files


@pytest.mark.covers("validate_plan", "success")
@pytest.mark.covers("execute_plan", "success")
@pytest.mark.covers("undo_last_plan", "success")
async def test_a_plan_over_60_notes_executes_and_undoes_to_identical_bytes(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(plan_files())) as vg:
        await vg.indexed()
        before = snapshot(vg.root)
        checked = await vg.ok("validate_plan", plan=big_plan())
        assert checked["valid"], checked["problems"]
        effects = checked["effects"]
        assert effects["estimated_steps"] == 1 + 10 + NOTES + 1 + NOTES + 5 + 5
        assert len(effects["files_created"]) == 10 and effects["risk_level"] == "destructive"
        assert len(effects["files_modified"]) == NOTES + 1 and len(effects["files_deleted"]) == 5
        assert [m["from"] for m in effects["files_moved"]] == [f"Move/m{i}.md" for i in range(5)]
        assert all(m["links_rewritten"] and m["links_rewritten"] > 0 for m in effects["files_moved"])
        token = await vg.token_for("execute_plan", plan=big_plan(), effects_hash=checked["effects_hash"])
        run = await vg.ok("execute_plan", plan=big_plan(), effects_hash=checked["effects_hash"], elicit_token=token)
        assert run["status"] == "done", [s["errors"] for s in run["steps"] if s["status"] != "ok"]
        assert run["calls_done"] == effects["estimated_steps"]
        assert (vg.root / "Archive/m3.md").is_file() and not (vg.root / "Move/m3.md").exists()
        assert "[[Archive/m3]]" in (vg.root / "Notes/n03.md").read_text()
        assert "reviewed" in (vg.root / "Notes/n10.md").read_text()
        assert snapshot(vg.root) != before
        token = await vg.token_for("undo_last_plan")
        undone = await vg.ok("undo_last_plan", elicit_token=token)
        assert undone["run_id"] == run["run_id"] and not undone["conflicts"]
        assert snapshot(vg.root) == before
