"""run_consolidation while a run started by a call is going: a call asking for jobs that run
joins it; one asking for a job it does not run starts a run of its own, which follows the first
(runs of one vault never overlap), instead of answering the first run as if it had run them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from tests.conftest import started


class Slow:
    name = "slow"
    needs: tuple[Need, ...] = ()

    def __init__(self) -> None:
        self.held = asyncio.Event()

    async def run(self, ctx: JobContext) -> list[Finding]:
        self.held.set()
        await asyncio.sleep(60)
        return []


class Quick:
    name = "quick"
    needs: tuple[Need, ...] = ()
    runs = 0

    async def run(self, ctx: JobContext) -> list[Finding]:
        Quick.runs += 1
        return []


async def test_a_run_of_other_jobs_is_not_answered_by_the_running_one(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        await vg.indexed()
        slow = Slow()
        vg.app.plane.jobs = (slow, Quick())
        first = await vg.ok("run_consolidation", wait=False, jobs=["slow"])
        await asyncio.wait_for(slow.held.wait(), 60)
        assert (await vg.ok("run_consolidation", wait=False, jobs=["slow"]))["run_id"] == first["run_id"]  # joined
        every = await vg.ok("run_consolidation", wait=False)  # all jobs: quick is not in the running one
        assert every["run_id"] != first["run_id"] and every["status"] == "running"
        assert Quick.runs == 0  # it waits for the first run to end
        await vg.ok("run_consolidation", cancel=True)  # the latest run
        launched = vg.app.plane.launched[first["run_id"]]
        launched.task.cancel()
