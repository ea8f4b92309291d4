"""run_consolidation asked while another caller's cancel of the running run is under way: it
starts a run of its own (after the cancelled one ends), not join the run being cancelled. Before,
it joined it: answered `running` with the cancelled run's id, then that run ended `cancelled` and
nothing ran.

Through the dispatch chain; the cancel is under way while a job holds (`Held`): nothing timed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.tools.plane.test_cancelled_run_keeps_its_jobs import PLANE, VAULT, Held, Quick


async def test_a_run_asked_while_the_running_one_is_cancelled_is_a_run_of_its_own(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(VAULT), plane=PLANE) as vg:
        await vg.indexed()
        first, held, last = Quick("first"), Held(), Quick("last")
        vg.app.plane.jobs = (first, held, last)
        launched = await vg.ok("run_consolidation", wait=False)
        await asyncio.wait_for(held.began.wait(), 60)
        live = vg.app.plane.launched[launched["run_id"]]
        cancel = asyncio.ensure_future(vg.ok("run_consolidation", cancel=True))
        for _ in range(10_000):  # until the cancel reached the run (turns of the loop, bounded)
            if live.task.cancelling() or live.task.done():
                break
            await asyncio.sleep(0)
        assert live.task.cancelling() and not live.task.done()
        held.free.set()  # the run asked now holds no more
        again = await vg.ok("run_consolidation", wait=True)
        cancelled = await cancel
        assert cancelled["run_id"] == launched["run_id"] and cancelled["status"] == "cancelled", cancelled
        assert again["run_id"] != launched["run_id"] and again["status"] == "done", again
        assert [j["job"] for j in again["jobs"]] == ["first", "held", "last"] and held.runs == 2


async def test_a_caller_waiting_for_a_run_another_cancels_is_answered_cancelled(
    make_vault: Callable[..., Path],
) -> None:
    """A run_consolidation waiting for its run (`wait: true`, or the first 10 s) while another
    caller cancels that run: it answers `cancelled` with the jobs the run recorded, as the cancel
    does. Before, the run's cancellation came out of the waiting call's handler as its own: the
    call ended cancelled, no answer (a client over HTTP waited for one)."""
    async with started(make_vault(VAULT), plane=PLANE) as vg:
        await vg.indexed()
        first, held, last = Quick("first"), Held(), Quick("last")
        vg.app.plane.jobs = (first, held, last)
        waiting = asyncio.ensure_future(vg.call("run_consolidation", wait=True))
        await asyncio.wait_for(held.began.wait(), 60)
        cancelled = await vg.ok("run_consolidation", cancel=True)
        answer = await waiting
        assert not answer.is_error and answer.structured is not None, answer
        assert answer.structured["status"] == "cancelled" and answer.structured["run_id"] == cancelled["run_id"]
        assert [j["job"] for j in answer.structured["jobs"]] == ["first"] and answer.structured["new"] == 1
