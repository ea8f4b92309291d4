"""A run cancelled over HTTP and gone on with by the schedule, read with the SDK client, both eras:
plane_status counts the whole run's findings (new, again, gone of both parts) and says when it went
on (tests/tools/plane/test_resumed_run_counts.py: the rules). The schedule's clock is injected."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.plane.test_cancelled_run_keeps_its_jobs import INTERVAL_MIN, PLANE, VAULT, Wall, wall
from tests.tools.plane.test_resumed_run_counts import Held, Listed
from tests.tools.plane.test_run_after_start import until

__all__ = ["wall"]  # the schedule's clock, a fixture


async def test_plane_status_counts_a_run_that_went_on_whole(
    make_vault: Callable[..., Path], mode: str, wall: Wall
) -> None:
    async with e2e(make_vault(VAULT), plane=PLANE) as (url, h):
        await h.indexed()
        first, held, last = Listed("first", ["a", "b"]), Held(), Listed("last", [])
        h.app.plane.jobs = (first, held, last)

        async def first_start() -> bool:
            return (await h.app.plane.saved("main"))["cursor"] is not None

        await until(first_start)
        anchor = (await h.app.plane.saved("main"))["cursor"]
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            wall.now = anchor + 5 * 60
            held.free.set()
            await ok(c, "run_consolidation", wait=True)  # `a` and `b` found
            first.keys, last.keys = ["a"], ["c"]
            held.began.clear()
            held.free.clear()
            wall.now = anchor + 10 * 60
            started = await ok(c, "run_consolidation", wait=False)
            await asyncio.wait_for(held.began.wait(), 60)
            cancelled = await ok(c, "run_consolidation", cancel=True)  # `a` again, `b` gone
            assert (cancelled["new"], cancelled["again"], cancelled["gone"]) == (0, 1, 1), cancelled
            assert (await ok(c, "plane_status"))["unfinished"]["left"] == ["held", "last"]

            held.free.set()
            wall.now = anchor + INTERVAL_MIN * 60  # the schedule goes on: `c` new

            async def went_on() -> bool:  # read in process: a call every 20 ms would leave the schedule no pause
                return (await h.app.plane.saved("main"))["last_run_id"] == started["run_id"]

            await until(went_on)
            status = await ok(c, "plane_status")
            assert status["unfinished"] is None and status["last_run_went_on"] is not None, status
            assert status["last_counts"] == {"new": 1, "again": 1, "gone": 1}, status
            assert [(j["job"], j["last_findings"]) for j in status["jobs"]] == [("first", 1), ("held", 0), ("last", 1)]
