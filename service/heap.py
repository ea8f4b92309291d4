"""The process's heaps kept small while it runs: the allocator trimmed once a minute.

`HeapTrimmer` (a component of the app) runs `service.malloc.trim()` once a minute in a worker
thread: between bulk loads, freed memory the heaps keep otherwise only grows with the busiest
minute seen (in an hour of mixed calls one trim gave back 13 MB of 146). Before each trim it
runs the `release` functions it was given: the databases' `release_memory`, which frees the
page caches of the connections not in use (up to ~19 MB for `cache.db`'s six, kept full for
good once a burst of searches filled them), so that the trim hands that memory back too.
Touches only the C allocator and what `release` does; the allocator's own calls (the trim, the
heaps' cap set at process start) are `service.malloc`'s.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from service.malloc import trim
from service.tasks import cancel_and_wait

log = logging.getLogger(__name__)

TRIM_EVERY_S = 60.0


class HeapTrimmer:
    """Every `every_s` seconds the `release` functions, then `trim()` off the event loop (ctypes
    lets go of the GIL). A release that fails is logged and the round goes on."""

    name = "heap-trim"

    def __init__(self, every_s: float = TRIM_EVERY_S, release: Sequence[Callable[[], Awaitable[object]]] = ()) -> None:
        self.every_s = every_s
        self.release = tuple(release)
        self.runs = 0
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name=self.name)

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)

    async def _loop(self) -> None:
        trims = True
        while True:
            await asyncio.sleep(self.every_s)
            for release in self.release:
                try:
                    await release()
                except Exception:  # noqa: BLE001 - memory hygiene never stops the server
                    log.warning("releasing memory failed", exc_info=True)
            if trims:
                trims = await asyncio.to_thread(trim)  # False: no malloc_trim in this C library
            if not trims and not self.release:
                return
            self.runs += 1
