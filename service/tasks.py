"""Stopping a background asyncio task for sure.

Every long-lived component (indexer, watcher, audit sink, sweeps, embedding jobs, plan runs)
owns tasks it cancels on shutdown and then awaits. A single `cancel()` is not always enough on
Python 3.11: `asyncio.wait_for` returns its inner result instead of raising when the cancel
arrives in the same loop step as the inner wait finishes (fixed in 3.12), so a loop built on
`wait_for` can swallow the cancel and carry on, and a bare `await task` then waits forever. CI
saw exactly that once: an app stop hung for minutes in the query warm-up's follow loop.
`cancel_and_wait` cancels again until the task has ended. Touches nothing but the task.
`LoopSlots`: at most N callers at once in some work (a query evaluator's worker threads).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

RECANCEL_S = 0.1  # how long a cancelled task gets before it is cancelled again


async def cancel_and_wait(task: asyncio.Task[Any] | asyncio.Future[Any] | None) -> None:
    """Cancel `task` and return once it has ended, whatever it ended with (its result or
    exception is consumed: a component stopping does not re-raise its task's failure). The
    caller's own cancellation still propagates."""
    if task is None:
        return
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=RECANCEL_S)
    if not task.cancelled():
        task.exception()  # retrieved, so asyncio does not log it as never retrieved


class LoopSlots:
    """At most `n` holders at once per event loop: `async with slots():` (an asyncio semaphore
    belongs to the loop it is first used in, and a process may run several loops: tests)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    def __call__(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        slots = self._by_loop.get(loop)
        if slots is None:
            slots = self._by_loop[loop] = asyncio.Semaphore(self.n)
        return slots
