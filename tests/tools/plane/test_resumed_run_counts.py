"""A run the schedule went on with after a cancel counts its findings over the whole run: new, again
and gone of its jobs before the cancel and of the jobs left, as one run in one go would count them.
Before, the run's record (and so plane_status) had the second part's counts only: a finding found
again and one gone in the first part were not counted anywhere.

Through the dispatch chain (run_consolidation, plane_status) with the schedule's clock injected
(`service.plane.plane.wall`, moved by the test): nothing waits for minutes, nothing is timed."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable
from pathlib import Path

from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from tests.conftest import Harness, started
from tests.tools.plane.test_cancelled_run_keeps_its_jobs import INTERVAL_MIN, PLANE, VAULT, Wall, wall
from tests.tools.plane.test_run_after_start import until

__all__ = ["wall"]  # the schedule's clock, a fixture


class Listed:
    """Finds one orphan per key it is given (`keys`, changed by the test between runs)."""

    needs: tuple[Need, ...] = ()

    def __init__(self, name: str, keys: list[str]) -> None:
        self.name, self.keys = name, keys

    async def run(self, ctx: JobContext) -> list[Finding]:
        return [Finding(job=self.name, kind="orphan", key=f"orphan:{k}", title=k, paths=["Home.md"]) for k in self.keys]


class Held(Listed):
    """Finds nothing; held while `free` is not set (the cancel comes while it runs)."""

    def __init__(self) -> None:
        super().__init__("held", [])
        self.began, self.free = asyncio.Event(), asyncio.Event()

    async def run(self, ctx: JobContext) -> list[Finding]:
        self.began.set()
        await self.free.wait()
        return []


async def resumed(vg: Harness, wall: Wall) -> tuple[str, float]:
    """A whole run finds `a` and `b`; the next, cancelled in `held` after `first` found `a` again and
    `b` no more, goes on at the schedule's next due run, where `last` finds `c`: the run's id, and
    when its part that went on began."""
    first, held, last = Listed("first", ["a", "b"]), Held(), Listed("last", [])
    vg.app.plane.jobs = (first, held, last)

    async def first_start() -> bool:
        return (await vg.app.plane.saved("main"))["cursor"] is not None

    await until(first_start)
    anchor = (await vg.app.plane.saved("main"))["cursor"]
    wall.now = anchor + 5 * 60
    held.free.set()
    whole = await vg.ok("run_consolidation", wait=True)
    assert (whole["new"], whole["again"], whole["gone"]) == (2, 0, 0), whole

    first.keys, last.keys = ["a"], ["c"]
    held.began.clear()
    held.free.clear()
    wall.now = anchor + 10 * 60
    launched = await vg.ok("run_consolidation", wait=False)
    await asyncio.wait_for(held.began.wait(), 60)
    cancelled = await vg.ok("run_consolidation", cancel=True)
    assert (cancelled["new"], cancelled["again"], cancelled["gone"]) == (0, 1, 1), cancelled
    run_id = str(launched["run_id"])

    held.free.set()
    wall.now = anchor + INTERVAL_MIN * 60  # due: the schedule goes on with `held` and `last`

    async def went_on() -> bool:
        return (await vg.app.plane.saved("main"))["last_run_id"] == run_id

    await until(went_on)
    return run_id, wall.now


async def test_a_run_that_went_on_after_a_cancel_counts_both_parts(make_vault: Callable[..., Path], wall: Wall) -> None:
    async with started(make_vault(VAULT), plane=PLANE) as vg:
        await vg.indexed()
        run_id, went_on_at = await resumed(vg, wall)

        saved = await vg.app.plane.saved("main")
        summary = saved["summary"]
        assert [(j["job"], j["run_id"]) for j in summary["jobs"]] == [(n, run_id) for n in ("first", "held", "last")]
        # `a` again and `b` gone before the cancel, `c` new after it: the whole run's, not the second part's (1, 0, 0)
        assert summary["counts"] == {"new": 1, "again": 1, "gone": 1}, summary
        assert summary["started_at"] < summary["went_on_at"] == went_on_at

        status = await vg.ok("plane_status")
        assert status["last_run_id"] == run_id and status["unfinished"] is None
        assert status["last_counts"] == {"new": 1, "again": 1, "gone": 1}, status
        assert status["last_run_went_on"] == dt.datetime.fromtimestamp(went_on_at, dt.UTC).isoformat(timespec="seconds")
        found = await vg.ok("list_findings", status=None)
        titles = sorted((f["title"], f["status"]) for f in found["items"])
        assert titles == [("a", "open"), ("b", "gone"), ("c", "open")]


async def test_a_run_in_one_go_says_it_did_not_go_on(make_vault: Callable[..., Path], wall: Wall) -> None:
    async with started(make_vault(VAULT), plane=PLANE) as vg:
        await vg.indexed()
        assert (await vg.ok("plane_status"))["last_counts"] is None  # no run yet
        vg.app.plane.jobs = (Listed("first", ["a"]),)
        await vg.ok("run_consolidation", wait=True)
        status = await vg.ok("plane_status")
        assert status["last_counts"] == {"new": 1, "again": 0, "gone": 0} and status["last_run_went_on"] is None
