"""`cancel_and_wait` ends a task even when its first cancel is swallowed (Python 3.11 `wait_for`)."""

from __future__ import annotations

import asyncio

import pytest

from service.tasks import cancel_and_wait


async def test_a_task_that_swallows_one_cancel_is_still_stopped() -> None:
    swallowed = asyncio.Event()
    forever = asyncio.Event()

    async def stubborn() -> None:
        try:
            await forever.wait()
        except asyncio.CancelledError:
            swallowed.set()  # what a 3.11 `wait_for` racing its inner future does
        await forever.wait()

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await cancel_and_wait(task)
    assert swallowed.is_set() and task.cancelled()


async def test_the_task_s_own_failure_is_consumed_not_raised() -> None:
    async def failing() -> None:
        raise RuntimeError("boom")

    task = asyncio.create_task(failing())
    await asyncio.sleep(0)
    await cancel_and_wait(task)  # no raise, and no "exception was never retrieved" later
    assert isinstance(task.exception(), RuntimeError)
    await cancel_and_wait(None)


async def test_the_callers_own_cancel_still_propagates() -> None:
    give_up = asyncio.Event()

    async def stubborn() -> None:
        while not give_up.is_set():
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                continue

    inner = asyncio.create_task(stubborn())
    outer = asyncio.create_task(cancel_and_wait(inner))
    await asyncio.sleep(0)
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer
    give_up.set()  # now the next cancel ends it
    await cancel_and_wait(inner)
    assert inner.done()


async def test_the_wait_for_race_that_hung_a_stop_is_ended() -> None:
    """The shape of the query warm-up's follow loop: its wait ends in the step its cancel arrives.
    On 3.11 `wait_for` then returns instead of raising and the loop goes on to its next wait."""
    ready, later = asyncio.Event(), asyncio.Event()

    async def follow() -> None:
        await asyncio.wait_for(ready.wait(), 3600)
        await asyncio.wait_for(later.wait(), 3600)

    task = asyncio.create_task(follow())
    await asyncio.sleep(0)
    ready.set()
    await cancel_and_wait(task)
    assert task.done()
