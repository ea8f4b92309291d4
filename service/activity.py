"""Whether callers are busy with the server: background work that can wait gives way to them.

The dispatcher counts the tool calls running and notes when the last one began. Background
work that only prepares for later calls (the secret prescan of long notes, the collector's
freeze of the start-up heap, the trigram rebuild after a bulk load, which holds the index's
writer for seconds) waits in `quiet` until no call runs and none began for a while.
Python runs one thread at a time: a background thread busy in Python holds the interpreter in
5 ms turns, so a call that arrives meanwhile waits for turns. Right after a start that made
the first reads of a stdio client 3-10 times slower for the seconds the start-up work took.
Touches nothing; reading it is free.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

QUIET_S = 1.0  # no call running and none begun for this long: the callers have paused


class Activity:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.running = 0
        self.last = float("-inf")  # when the last call began (`clock` seconds)
        self._idle = asyncio.Event()  # set while no call runs
        self._idle.set()

    def begin(self) -> None:
        self.running += 1
        self.last = self._clock()
        self._idle.clear()

    def end(self) -> None:
        self.running -= 1
        if not self.running:
            self._idle.set()

    async def quiet(self, quiet_s: float = QUIET_S, *, within: float | None = None) -> None:
        """Return once no call runs and none began in the last `quiet_s` seconds, or after
        `within` seconds whatever the calls do (None: no limit)."""
        if within is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.quiet(quiet_s), within)
            return
        while True:
            await self._idle.wait()
            left = quiet_s - (self._clock() - self.last)
            if left <= 0 and not self.running:
                return
            await asyncio.sleep(max(left, 0.0))
