"""The query warm-up stops every task it runs, those a follower adds while others are being
cancelled included (a vault's follower adds its secrets task once the index is ready: a stop at
that moment raised 'dictionary changed size during iteration' and left the later tasks running)."""

from __future__ import annotations

import asyncio

from service.tools.query_warmup import QueryWarmup


async def test_a_task_added_while_stopping_is_stopped_too() -> None:
    warmup = QueryWarmup({}, db=None)  # type: ignore[arg-type]  # never read by stop()
    added = asyncio.Event()

    async def late() -> None:
        await asyncio.Event().wait()

    async def first() -> None:
        try:
            await asyncio.Event().wait()
        finally:  # while stop() cancels this one, a follower adds another task
            warmup._tasks["v:secrets"] = asyncio.create_task(late())
            added.set()

    warmup._tasks["v"] = asyncio.create_task(first())
    await asyncio.sleep(0)
    await warmup.stop()
    assert added.is_set() and warmup._tasks == {}
    pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    assert pending == [], pending
