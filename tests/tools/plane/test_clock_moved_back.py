"""The wall clock moved back (a machine whose clock was ahead, set right; a restored snapshot)
past the schedule's anchor (the last full run's end, or the vault's first start): the next run is
an interval from now, not from the anchor, which may be days ahead. Before, no run started until
the clock caught up with it (changes counted since that anchor: none either). An unfinished run
that began "later" than now is of an age no clock tells: the schedule's run is then a whole run.

Through the dispatch chain with the schedule's clock injected (`tests.tools.plane.
test_cancelled_run_keeps_its_jobs.wall`): nothing waits for minutes, nothing is timed."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

from service.tools.plane.answers import iso
from tests.conftest import started
from tests.tools.plane.test_cancelled_run_keeps_its_jobs import (
    INTERVAL_MIN,
    PLANE,
    VAULT,
    Quick,
    Wall,
    cancelled_mid_run,
    wall,
)
from tests.tools.plane.test_run_after_start import until

__all__ = ["wall"]  # the fixture, imported to be used here
BACK_S = 3 * 24 * 3600  # three days


async def test_a_clock_moved_back_past_the_schedules_anchor_runs_an_interval_from_now(
    make_vault: Callable[..., Path], wall: Wall
) -> None:
    async with started(make_vault(VAULT), plane=PLANE) as vg:
        await vg.indexed()
        first = Quick("first")
        vg.app.plane.jobs = (first,)

        async def first_start() -> bool:
            return (await vg.app.plane.saved("main"))["cursor"] is not None

        await until(first_start)
        anchor = (await vg.app.plane.saved("main"))["cursor"]
        wall.now = anchor - BACK_S
        status = await vg.ok("plane_status")
        due = dt.datetime.fromisoformat(status["next_run"]).timestamp()
        assert abs(due - (wall.now + INTERVAL_MIN * 60)) < 1, status  # to the second, as it is shown

        async def ran() -> bool:
            wall.now += 60  # a minute each look: the loop sees the clock back, then an interval pass
            return (await vg.app.plane.saved("main"))["last_run"] is not None

        await until(ran)  # its bound: ~50 hours of this clock, short of the three days it went back
        saved = await vg.app.plane.saved("main")
        assert first.runs == 1 and saved["summary"]["trigger"] == "interval" and saved["last_run"] < anchor


async def test_an_unfinished_run_begun_after_the_clocks_now_is_run_again_whole(
    make_vault: Callable[..., Path], wall: Wall
) -> None:
    async with started(make_vault(VAULT), plane=PLANE) as vg:
        await vg.indexed()
        first, held, last, run_id = await cancelled_mid_run(vg, wall)
        held.free.set()
        wall.now -= BACK_S
        left = (await vg.ok("plane_status"))["unfinished"]  # not gone on with: a whole run, from now
        assert left["run_id"] == run_id and left["goes_on_until"] == iso(wall.now), left

        async def ended() -> bool:
            wall.now += 60  # as above
            return (await vg.app.plane.saved("main"))["last_run"] is not None

        await until(ended)
        assert (first.runs, held.runs, last.runs) == (2, 2, 1)  # every job again: its part before is of no known age
        status = await vg.ok("plane_status")
        assert status["last_run_id"] != run_id and status["unfinished"] is None
