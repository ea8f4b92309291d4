"""A consolidation run gives way to the server's calls (service/plane/job.py): at each `Limit.up`
of its worker thread (`JobContext.give_way`) and between its pieces on the loop
(`JobContext.pause`), while a call runs or one began within `TURN_QUIET_S`. Without it, every
call of a burst shared the interpreter with the run's thread in 5 ms turns (a 10k vault's audit:
read_note p95 12 ms against 2.5 ms idle)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, cast

import pytest

from service.activity import Activity
from service.graph.analytics import Limit, Stopped
from service.plane import job
from service.plane.job import JobContext


def _ctx(activity: Activity | None) -> JobContext:
    none = cast(Any, None)
    return JobContext(none, none, none, none, None, none, none, None, 0.0, activity=activity)


def test_limit_calls_its_turns_at_each_check_and_a_stop_set_meanwhile_ends_the_work() -> None:
    turns: list[int] = []
    limit = Limit(turns=lambda: turns.append(1))
    assert limit.up() is False and limit.up() is False and turns == [1, 1]
    stopping = Limit()
    stopping.turns = stopping.stop.set  # the run was cancelled while the work waited
    with pytest.raises(Stopped):
        stopping.up()


async def test_the_worker_waits_at_its_checks_while_a_call_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(job, "TURN_WAIT_S", 60.0)  # only the call's end lets it go on
    monkeypatch.setattr(job, "WAIT_FLOOR_S", 60.0)
    activity = Activity()
    activity.begin()  # a call runs
    checks, done = [], threading.Event()
    waiting = threading.Event()
    real = job.calls_pause

    def pause(quiet_s: float, within: float, **kw: Any) -> float:
        waiting.set()
        return real(quiet_s, within, **kw)

    monkeypatch.setattr(job, "calls_pause", pause)

    def work(limit: Limit) -> int:
        for i in range(3):
            limit.up()
            checks.append(i)
        done.set()
        return len(checks)

    task = asyncio.ensure_future(_ctx(activity).compute(work))
    assert await asyncio.to_thread(waiting.wait, 30)
    await asyncio.sleep(0.2)
    assert checks == [] and not done.is_set()  # held at its first check while the call runs
    activity.end()
    assert await asyncio.wait_for(task, 30) == 3  # then on, after the quiet time, to its end


async def test_without_calls_the_checks_do_not_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(job, "TURN_WAIT_S", 60.0)
    activity = Activity()
    activity.begin()
    activity.end()
    activity.last -= 10.0  # the last call began long ago
    ctx = _ctx(activity)
    assert await asyncio.wait_for(ctx.compute(lambda limit: [limit.up() for _ in range(1000)]), 30) == [False] * 1000
    assert await asyncio.wait_for(_ctx(None).compute(lambda limit: limit.up()), 30) is False  # no activity: none


async def test_a_pause_waits_for_the_calls_and_the_quiet_time_after_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(job, "PAUSE_S", 60.0)
    monkeypatch.setattr(job, "WAIT_FLOOR_S", 60.0)
    activity = Activity()
    activity.begin()
    pausing = asyncio.ensure_future(_ctx(activity).pause())
    await asyncio.sleep(0.2)
    assert not pausing.done()
    activity.end()
    await asyncio.wait_for(pausing, 30)
    monkeypatch.setattr(job, "PAUSE_S", 0.05)
    activity.begin()  # a call that never ends: the pause is bounded
    await asyncio.wait_for(_ctx(activity).pause(), 30)


async def test_under_calls_that_never_stop_a_run_waits_no_longer_than_it_worked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The waits of one run are bounded in all: at most as long as it has worked, plus
    `WAIT_FLOOR_S`; without that bound a call that never ends (or calls back to back all day)
    held the run at every check and every pause for ever."""
    monkeypatch.setattr(job, "TURN_WAIT_S", 60.0)
    monkeypatch.setattr(job, "PAUSE_S", 60.0)
    monkeypatch.setattr(job, "WAIT_FLOOR_S", 0.2)
    activity = Activity()
    activity.begin()  # never ends
    ctx = _ctx(activity)

    def work(limit: Limit) -> int:
        for _ in range(50):
            limit.up()
            threading.Event().wait(0.002)  # a little work between checks
        return 50

    assert await asyncio.wait_for(ctx.compute(work), 30) == 50
    await asyncio.wait_for(ctx.pause(), 30)
    assert ctx.waits_left() == pytest.approx(0.0, abs=0.05)  # its allowance spent, no more
    assert ctx.waited >= 0.2
    activity.end()
