"""`JobContext.compute` runs a job's whole-vault work in a worker thread, and a cancelled run stops
it at its next `limit.up()` (T3 s61 defect 4)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, cast

from service.graph.analytics import Limit, Stopped
from service.plane.job import JobContext


def _ctx() -> JobContext:
    none = cast(Any, None)
    return JobContext(none, none, none, none, None, none, none, None, 0.0)


async def test_compute_runs_off_the_loop_and_stops_when_cancelled() -> None:
    loop_thread = threading.get_ident()
    assert await _ctx().compute(lambda _limit: threading.get_ident()) != loop_thread

    began, ended = threading.Event(), threading.Event()
    how: list[str] = []

    def work(limit: Limit) -> None:
        began.set()
        try:
            while True:
                limit.up()
                threading.Event().wait(0.001)
        except Stopped:
            how.append("stopped")
        finally:
            ended.set()

    task = asyncio.ensure_future(_ctx().compute(work))
    await asyncio.to_thread(began.wait)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await asyncio.to_thread(ended.wait)  # the worker ends by itself: nothing else would stop it
    assert task.cancelled() and how == ["stopped"]
