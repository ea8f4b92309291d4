"""Cancelling a plan: `cancel_plan` of a background run, and the cancellation of the call itself.

A `Hold` (tests/long_changes.py) holds the plan's first move after its first file was written,
so the cancellation always arrives while that step runs: the step finishes (a started call is
never cut short), nothing after it runs, the run ends `cancelled`, and undo restores the vault.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from service.app import VaultgateApp
from tests.conftest import Harness, settings_for, snapshot
from tests.long_changes import Hold
from tests.plan_vault import big_plan, plan_files


@contextlib.asynccontextmanager
async def held(root: Path, hold: Hold) -> AsyncIterator[Harness]:
    app = VaultgateApp(settings_for(root), step_hook=hold)
    async with app.running():
        harness = Harness(app, root)
        await harness.indexed()
        yield harness


def _plan() -> dict[str, Any]:
    """big_plan with the move before the per-note steps: a cancel during the move skips them."""
    plan = big_plan()
    steps = {s["id"]: s for s in plan["steps"]}
    plan["steps"] = [steps[k] for k in ("find", "create", "move", "patch", "hub", "tag", "delete")]
    return plan


def _consistent(root: Path) -> None:
    """The creates and the held move (the current call) happened completely; nothing after them did."""
    assert all((root / f"New/c{i}.md").is_file() for i in range(10))
    assert (root / "Archive/m0.md").is_file() and not (root / "Move/m0.md").exists()
    assert all((root / f"Move/m{i}.md").is_file() for i in range(1, 5))
    hub = (root / "Hub.md").read_text()
    assert "[[Archive/m0]]" in (root / "Notes/n00.md").read_text() and "[[Archive/m0]]" in hub and "[[Move/m4]]" in hub
    assert "appended" not in (root / "Notes/n00.md").read_text() and (root / "Old/o0.md").is_file()


@pytest.mark.covers("cancel_plan", "success")
@pytest.mark.covers("cancel_plan", "failure")
async def test_cancel_plan_stops_a_background_run_after_its_current_step(make_vault: Callable[..., Path]) -> None:
    hold = Hold("commit", 1)
    async with held(make_vault(plan_files()), hold) as vg:
        before = snapshot(vg.root)
        token = await vg.token_for("execute_plan", plan=_plan(), background=True)
        run = await vg.ok("execute_plan", plan=_plan(), background=True, elicit_token=token)
        assert run["status"] == "running"
        await hold.reached.wait()
        cancel = await vg.ok("cancel_plan", run_id=run["run_id"])
        assert cancel["cancelling"] is True
        hold.release.set()
        await vg.app.plans.wait(run["run_id"])
        got = await vg.ok("get_plan_run", run_id=run["run_id"])
        assert got["status"] == "cancelled"
        statuses = {s["id"]: s["status"] for s in got["steps"]}
        assert statuses["create"] == "ok" and statuses["patch"] == "cancelled" and statuses["delete"] == "cancelled"
        assert statuses["move"] == "cancelled" and got["steps"][2]["calls"] == 1 and got["calls_done"] == 1 + 10 + 1
        _consistent(vg.root)
        again = await vg.ok("cancel_plan", run_id=run["run_id"])  # finished: nothing to cancel
        assert again["cancelling"] is False and again["status"] == "cancelled"
        await vg.err("cancel_plan", "not_found", run_id="no-such-run")
        await vg.confirmed("undo_last_plan")
        assert snapshot(vg.root) == before


async def test_cancelling_the_call_stops_after_the_current_step(make_vault: Callable[..., Path]) -> None:
    hold = Hold("commit", 1)
    async with held(make_vault(plan_files()), hold) as vg:
        before = snapshot(vg.root)
        token = await vg.token_for("execute_plan", plan=_plan())
        async with anyio.create_task_group() as tg:

            async def execute() -> None:
                await vg.call("execute_plan", plan=_plan(), elicit_token=token)

            tg.start_soon(execute)
            await hold.reached.wait()
            tg.cancel_scope.cancel()
            hold.release.set()
        assert not hold.cancelled.is_set()  # the held call itself ran to its end
        [state] = vg.app.plans.live.values()
        assert state.status == "cancelled"
        assert [(o.id, o.status, o.calls) for o in state.outcomes][1:4] == [
            ("create", "ok", 10),
            ("move", "cancelled", 1),
            ("patch", "cancelled", 0),
        ]
        row = await vg.app.plans.journal.run(state.run_id)
        assert row is not None and row.status == "cancelled"
        _consistent(vg.root)
        undone = await vg.confirmed("undo_last_plan")
        assert undone["run_id"] == state.run_id and snapshot(vg.root) == before
