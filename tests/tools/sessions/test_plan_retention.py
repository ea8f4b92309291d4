"""The plan journal's retention: keep the newest runs per vault, drop old ones, never the ones
still wanted (a running run, each caller's default undo target, an interrupted run not undone)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.plans.retention import prune
from service.types import Principal
from tests.conftest import started

WRITER = frozenset({"read:vault", "write:vault", "delete:vault"})


def _plan(path: str) -> dict[str, Any]:
    return {"goal": f"make {path}", "steps": [{"id": "a", "tool": "create_note", "args": {"path": path}}]}


async def _runs(db: Any) -> dict[str, tuple[str, str]]:
    rows = await db.fetchall("SELECT id, caller, status FROM plan_runs")
    return {r[0]: (r[1], r[2]) for r in rows}


async def test_runs_beyond_keep_runs_are_pruned_after_a_run_but_each_callers_undo_target_stays(
    make_vault: Callable[..., Path],
) -> None:
    alice, bob = Principal("alice", WRITER), Principal("bob", WRITER)
    async with started(make_vault(), plans={"keep_runs": 2}) as vg:
        state = vg.app.services.plans.journal.db
        call = vg.app.dispatcher.call
        first_bob = (await call("execute_plan", {"plan": _plan("B0")}, principal=bob)).structured
        ids = [(await call("execute_plan", {"plan": _plan(f"A{i}")}, principal=alice)).structured for i in range(4)]
        kept = await _runs(state)
        # alice's two newest are the vault's two newest; bob's only run is his undo target: kept
        assert set(kept) == {ids[2]["run_id"], ids[3]["run_id"], first_bob["run_id"]}  # type: ignore[index]
        entries = await state.fetchall("SELECT DISTINCT run_id FROM plan_journal")
        assert {r[0] for r in entries} == set(kept)  # the journal of a pruned run goes with it
        undo = await call("undo_last_plan", {"dry_run": True}, principal=bob)
        assert undo.structured is not None and undo.structured["run_id"] == first_bob["run_id"]  # type: ignore[index]


async def test_age_limit_spares_running_and_interrupted_runs(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(), plans={"keep_runs": 100, "max_age_days": 1}) as vg:
        plans = vg.app.services.plans
        db = plans.journal.db
        runs = [await vg.ok("execute_plan", plan=_plan(f"N{i}")) for i in range(3)]
        old = time.time() - 3 * 86_400
        await db.run_write(lambda c: c.execute("UPDATE plan_runs SET started_at = ?", (old,)))
        live = await plans.journal.open_run("main", "x", kind="plan", goal="g", plan_hash="h", total=1)
        killed = await plans.journal.open_run("main", "y", kind="plan", goal="g", plan_hash="h", total=1)
        await plans.journal.close_run(killed, "interrupted", [], 0)
        await db.run_write(lambda c: c.execute("UPDATE plan_runs SET started_at = ?", (old,)))
        assert await prune(db, keep_runs=100, max_age_days=1) == 2  # the test caller's newest run stays
        assert set(await _runs(db)) == {runs[2]["run_id"], live, killed}
        assert await prune(db, keep_runs=100, max_age_days=0) == 0  # 0: no age limit


async def test_the_journal_is_pruned_at_start_up(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    async with started(root, plans={"keep_runs": 100}) as vg:
        runs = [await vg.ok("execute_plan", plan=_plan(f"S{i}")) for i in range(3)]
        assert len(await _runs(vg.app.services.plans.journal.db)) == 3
    async with started(root, plans={"keep_runs": 1}) as vg:  # a restart with a smaller limit
        assert set(await _runs(vg.app.services.plans.journal.db)) == {runs[2]["run_id"]}
