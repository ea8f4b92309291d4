"""The plan clock of a multi-note link rewrite (`service.graph.plan_clock`), on a fake clock:
`scan` stops after the note at which the budget is spent, reads no note past it, and says how
many of the candidates it examined."""

from __future__ import annotations

import pytest

from service.errors import ComputeBudgetExceeded
from service.graph.moves import BATCH, FileEdit, MovePlan, scan
from service.graph.plan_clock import PlanClock
from service.settings.limits import LimitsSettings
from tests.ticks import Ticks


async def test_the_scan_stops_at_the_note_that_spends_the_budget() -> None:
    read: list[str] = []

    def edit_of(path: str) -> FileEdit | None:
        read.append(path)
        return FileEdit(path, path, "etag", "old [[A]]", "new [[B]]", [])

    candidates = [f"n{i:03}.md" for i in range(BATCH * 2 + 5)]
    # made at 1; read once a note: past 1 + BATCH + 2.5 at the BATCH+3rd
    clock = PlanClock(LimitsSettings(max_rewrite_seconds=BATCH + 2.5), clock=Ticks())
    with pytest.raises(ComputeBudgetExceeded) as caught:
        await scan(MovePlan(moves={}), candidates, edit_of, clock=clock)
    assert caught.value.details == {
        "limit": "seconds",
        "max_seconds": BATCH + 2.5,
        "setting": "max_rewrite_seconds",
        "examined": BATCH + 3,
        "total": len(candidates),
    }
    assert read == candidates[: BATCH + 3]


async def test_a_scan_within_its_budget_examines_every_note() -> None:
    plan = MovePlan(moves={})
    candidates = [f"n{i}.md" for i in range(10)]
    clock = PlanClock(LimitsSettings(max_rewrite_seconds=10.5), clock=Ticks())
    await scan(plan, candidates, lambda p: FileEdit(p, p, "e", "a", "b", []), clock=clock)
    assert [e.path for e in plan.edits] == candidates
