"""A run cancelled part way keeps the jobs it finished: each job is recorded as it ends (its findings,
report and cursor, in one transaction), the run stays `unfinished`, and the schedule's next due run
goes on with the jobs left — while the run began less than an interval ago; after that a whole
run starts. Before, a cancelled run recorded nothing and the next one ran every job again.

Through the dispatch chain (run_consolidation, plane_status, list_findings) with the schedule's
clock injected (`service.plane.plane.wall`, moved by the test; the schedule looks at it every
20 ms): nothing waits for minutes, nothing is timed."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from service.plane import plane as plane_module
from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from tests.conftest import Harness, started
from tests.tools.plane.test_run_after_start import until

VAULT = {"Home.md": "# Home\n\nSee [[Other]].\n", "Other.md": "# Other\n"}
INTERVAL_MIN = 60


class Wall:
    """The schedule's clock: now, until the test moves it."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


class Quick:
    needs: tuple[Need, ...] = ()

    def __init__(self, name: str) -> None:
        self.name, self.runs = name, 0

    async def run(self, ctx: JobContext) -> list[Finding]:
        self.runs += 1
        path = "Home.md" if self.name == "first" else "Other.md"
        return [Finding(job=self.name, kind="orphan", key=f"orphan:{self.name}", title=self.name, paths=[path])]


class Held(Quick):
    """Held until the test frees it (a long job: the cancel comes while it runs)."""

    def __init__(self) -> None:
        super().__init__("held")
        self.began, self.free = asyncio.Event(), asyncio.Event()

    async def run(self, ctx: JobContext) -> list[Finding]:
        self.runs += 1
        self.began.set()
        await self.free.wait()
        return []


@pytest.fixture
def wall(monkeypatch: pytest.MonkeyPatch) -> Wall:
    clock = Wall()
    monkeypatch.setattr(plane_module, "wall", clock, raising=False)
    monkeypatch.setattr(plane_module, "CHECK_S", 0.02)
    return clock


PLANE = {"interval_minutes": INTERVAL_MIN, "after_start_minutes": 0, "after_changes": 100_000}


async def cancelled_mid_run(vg: Harness, wall: Wall) -> tuple[Quick, Held, Quick, str]:
    """The jobs first, held, last; a run_consolidation cancelled while `held` runs (ten minutes after
    the vault's first start): its answer is checked, and the jobs and its run id returned."""
    first, held, last = Quick("first"), Held(), Quick("last")
    vg.app.plane.jobs = (first, held, last)

    async def first_start() -> bool:  # the schedule's anchor: its first start, an interval before its first run
        return (await vg.app.plane.saved("main"))["cursor"] is not None

    await until(first_start)
    wall.now = (await vg.app.plane.saved("main"))["cursor"] + 10 * 60
    launched = await vg.ok("run_consolidation", wait=False)
    await asyncio.wait_for(held.began.wait(), 60)
    answer = await vg.ok("run_consolidation", cancel=True)
    assert answer["run_id"] == launched["run_id"] and answer["status"] == "cancelled", answer
    # the job it finished, recorded; the one in progress recorded nothing
    assert [(j["job"], j["status"], j["findings"]) for j in answer["jobs"]] == [("first", "ran", 1)], answer
    assert (answer["new"], answer["gone"]) == (1, 0), answer
    return first, held, last, str(launched["run_id"])


async def test_a_cancelled_run_keeps_its_finished_jobs_and_the_next_due_run_goes_on_with_the_rest(
    make_vault: Callable[..., Path], wall: Wall
) -> None:
    async with started(make_vault(VAULT), plane=PLANE) as vg:
        await vg.indexed()
        first, held, last, run_id = await cancelled_mid_run(vg, wall)

        status = await vg.ok("plane_status")
        assert status["last_run"] is None and status["running"] is None  # not a run that ended
        left = status["unfinished"]
        assert (left["run_id"], left["done"], left["left"]) == (run_id, ["first"], ["held", "last"]), left
        began, until_at = (dt.datetime.fromisoformat(left[k]) for k in ("started_at", "goes_on_until"))
        assert until_at - began == dt.timedelta(minutes=INTERVAL_MIN), left  # then a whole run instead
        reports = {j["job"]: (j["last_status"], j["last_findings"]) for j in status["jobs"]}
        assert reports == {"first": ("ran", 1), "held": (None, None), "last": (None, None)}
        found = await vg.ok("list_findings", status="open")
        assert [f["title"] for f in found["items"]] == ["first"]

        held.free.set()
        wall.now += (INTERVAL_MIN - 10) * 60  # due: an interval after the first start, 50 min after the cancel
        assert wall.now == (await vg.app.plane.saved("main"))["cursor"] + INTERVAL_MIN * 60

        async def ended() -> bool:
            return (await vg.app.plane.saved("main"))["last_run"] is not None

        await until(ended)
        assert (first.runs, held.runs, last.runs) == (1, 2, 1)  # the jobs left only
        status = await vg.ok("plane_status")
        assert status["last_run_id"] == run_id and status["unfinished"] is None  # the run went on and ended
        reports = {j["job"]: (j["last_status"], j["last_findings"]) for j in status["jobs"]}
        assert reports == {"first": ("ran", 1), "held": ("ran", 0), "last": ("ran", 1)}
        found = await vg.ok("list_findings", status="open")
        assert sorted(f["title"] for f in found["items"]) == ["first", "last"]
        saved = await vg.app.plane.saved("main")
        assert saved["summary"]["trigger"] == "interval" and saved["summary"]["full_run_end"] == wall.now
        cursors = saved["summary"]["cursors"]  # each job's where it began: the first before the stop
        assert cursors["first"] == saved["summary"]["started_at"] < cursors["held"] == cursors["last"] == wall.now


async def test_an_unfinished_run_an_interval_old_is_run_again_whole(
    make_vault: Callable[..., Path], wall: Wall
) -> None:
    async with started(make_vault(VAULT), plane=PLANE) as vg:
        await vg.indexed()
        first, held, last, run_id = await cancelled_mid_run(vg, wall)
        held.free.set()
        wall.now += 2 * INTERVAL_MIN * 60  # the server was away: the finished job's findings are that old

        async def ended() -> bool:
            return (await vg.app.plane.saved("main"))["last_run"] is not None

        await until(ended)
        assert (first.runs, held.runs, last.runs) == (2, 2, 1)  # every job again
        status = await vg.ok("plane_status")
        assert status["last_run_id"] != run_id and status["unfinished"] is None


async def test_run_consolidation_after_a_cancel_runs_every_job(make_vault: Callable[..., Path], wall: Wall) -> None:
    async with started(make_vault(VAULT), plane=PLANE) as vg:
        await vg.indexed()
        first, held, last, run_id = await cancelled_mid_run(vg, wall)
        held.free.set()
        out = await vg.ok("run_consolidation", wait=True)  # a caller asks for a whole run
        assert out["run_id"] != run_id and [j["job"] for j in out["jobs"]] == ["first", "held", "last"]
        assert (first.runs, held.runs, last.runs) == (2, 2, 1)
        assert (await vg.ok("plane_status"))["unfinished"] is None
