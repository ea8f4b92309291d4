"""get_plan_run of an undo run (undo_last_plan's `undo_run_id`) or of an all-or-nothing call's
`bulk` run answers its one step whole: `Journal.recording` closed those runs with a short outcome
(`{id, tool, calls}`) and get_plan_run answered internal_error on it (U8, s75). Rows already stored
with the short shape are read with the rest filled in."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

PLAN = {"goal": "g", "steps": [{"id": "a", "tool": "create_note", "args": {"path": "A.md", "content": "a"}}]}


async def test_get_plan_run_of_an_undo_run(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        await vg.ok("execute_plan", plan=PLAN)
        undone = await vg.confirmed("undo_last_plan")
        run = await vg.ok("get_plan_run", run_id=undone["undo_run_id"])
        assert run["status"] == "done"
        assert run["steps"] == [
            {"id": "undo", "tool": "undo", "status": "ok", "calls": 1, "failed_calls": 0, "errors": [], "result": None}
        ]


async def test_get_plan_run_of_a_bulk_call_run(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        notes = [{"path": "B/One.md", "content": "# One\n"}, {"path": "B/Two.md", "content": "# Two\n"}]
        await vg.ok("bulk_create_notes", notes=notes)
        [row] = await vg.app.state.fetchall("SELECT id FROM plan_runs WHERE kind = 'bulk'")
        run = await vg.ok("get_plan_run", run_id=row[0])
        assert run["status"] == "done"
        [step] = run["steps"]
        assert (step["id"], step["status"], step["failed_calls"], step["errors"]) == ("bulk", "ok", 0, [])
        assert step["calls"] >= 2


async def test_a_run_stored_with_the_short_step_shape_is_read(make_vault: Callable[..., Path]) -> None:
    """A state.db written before the fix holds `[{"id": "undo", "tool": "undo", "calls": 2}]`."""
    async with started(make_vault({"Home.md": "# Home\n"})) as vg:
        await vg.ok("execute_plan", plan=PLAN)
        undone = await vg.confirmed("undo_last_plan")
        short = json.dumps([{"id": "undo", "tool": "undo", "calls": 2}])
        await vg.app.state.run_write(
            lambda conn: conn.execute("UPDATE plan_runs SET outcome = ? WHERE id = ?", (short, undone["undo_run_id"]))
        )
        run = await vg.ok("get_plan_run", run_id=undone["undo_run_id"])
        assert run["steps"] == [
            {"id": "undo", "tool": "undo", "status": "ok", "calls": 2, "failed_calls": 0, "errors": [], "result": None}
        ]
