"""Activity (service/activity.py): the calls running and when the last one began, and
`quiet`, which returns only once no call runs and none began for the quiet time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from service.activity import Activity
from tests.conftest import started


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def _settle(task: asyncio.Task[None]) -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_quiet_waits_while_a_call_runs_and_for_the_quiet_time_after_it() -> None:
    clock = Clock()
    activity = Activity(clock)
    await asyncio.wait_for(activity.quiet(5.0), 1)  # nothing ever ran
    activity.begin()
    activity.begin()
    waiter = asyncio.create_task(activity.quiet(5.0))
    await _settle(waiter)
    activity.end()
    await _settle(waiter)
    assert not waiter.done() and activity.running == 1
    activity.end()
    clock.now += 4.99  # the quiet time is not over: it sleeps the 0.01 s left, then checks again
    await _settle(waiter)
    assert not waiter.done()
    clock.now += 1.0
    await asyncio.wait_for(waiter, 5)


async def test_a_call_that_begins_during_the_wait_starts_it_again() -> None:
    clock = Clock()
    activity = Activity(clock)
    activity.begin()
    activity.end()
    waiter = asyncio.create_task(activity.quiet(0.0))
    activity.begin()  # before the waiter ran
    await _settle(waiter)
    assert not waiter.done()
    activity.end()
    await asyncio.wait_for(waiter, 5)


async def test_every_tool_call_is_counted_while_it_runs(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault()) as vg:
        activity = vg.app.activity
        before = activity.last
        seen: list[int] = []
        original = vg.app.dispatcher._run

        async def spy(call):  # type: ignore[no-untyped-def]
            seen.append(activity.running)
            return await original(call)

        vg.app.dispatcher._run = spy
        await vg.ok("list_notes")
        await vg.ok("call_capability", name="list_notes", arguments={})  # nested: counted twice
        assert seen == [1, 1, 2] and activity.running == 0 and activity.last > before
