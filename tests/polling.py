"""Waiting for a condition in a test: polled under a generous bound, never a fixed pause.

A test that reads a state once right after an event, or polls it for a few seconds, fails when
the machine is slow (CI runs 4 workers on 2 cores while other things run; session 79's work was
lost to one such read). `until` checks again and again until the condition holds, for up to
`within` seconds (60 by default: a bound for a hang, not a measure), and otherwise fails naming
what it waited for. The check may be a plain function or a coroutine function.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import Any

BOUND_S = 60.0


async def until(check: Callable[[], Any], what: str, *, within: float = BOUND_S, pause: float = 0.02) -> Any:
    """The first true value `check()` gives (awaited when it is a coroutine), polled every `pause`
    seconds; AssertionError naming `what` once `within` seconds have passed without one."""
    deadline = time.monotonic() + within
    while True:
        got = check()
        if inspect.isawaitable(got):
            got = await got
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {within:.0f} s (last: {got!r})")
        await asyncio.sleep(pause)
