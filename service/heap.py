"""The C allocator's memory: freed memory given back, and the number of heaps capped.

A cold index of 10,000 notes allocates and frees a batch's parsed rows, SQLite statements and
FTS buffers again and again. glibc's allocator keeps freed chunks for reuse and returns the top
of a heap only past a threshold, so the process's resident memory kept the high-water mark of
every batch and climbed through the load. `trim()` asks glibc to release what is free now
(`malloc_trim(0)`: up to ~30 ms, so callers run it in a worker thread); the cold build's peak
RSS fell by about 8 MB. On a C library without `malloc_trim` (musl, macOS) it does nothing.

`limit_arenas()` caps glibc's heaps ("arenas") at two. glibc gives threads heaps of their own,
up to eight per CPU, and each keeps its freed memory: the event loop, the SQLite connections'
threads, the worker threads of `asyncio.to_thread` and the file watcher each grew one. Over an
hour of mixed calls the server peaked at 174 MB with them and at 154 MB with two (and the
minute's trim below). Python's own small objects never come from these heaps and the threads
mostly take turns under the GIL, so two are enough. `MALLOC_ARENA_MAX` in the environment, if
set, is left to rule.

`HeapTrimmer` (a component of the app) runs `trim()` once a minute in a worker thread: between
bulk loads, freed memory the heaps keep otherwise only grows with the busiest minute seen (in
an hour of mixed calls one trim gave back 13 MB of 146). Before each trim it runs the `release`
functions it was given: the databases' `release_memory`, which frees the page caches of the
connections not in use (up to ~19 MB for `cache.db`'s six, kept full for good once a burst of
searches filled them), so that the trim hands that memory back too. Touches only the C
allocator and what `release` does.
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
import logging
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from service.tasks import cancel_and_wait

log = logging.getLogger(__name__)
ARENAS = 2
_M_ARENA_MAX = -8  # mallopt's parameter number in glibc's malloc.h


@functools.cache
def _libc_function(name: str, *args: Any) -> Any:
    """`name` from the C library the interpreter runs on, typed `(*args) -> int`; None when that
    library has no such function (musl, macOS)."""
    try:
        fn = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None
    fn.argtypes = list(args)
    fn.restype = ctypes.c_int
    return fn


def trim() -> bool:
    """Release the allocator's free memory to the OS; False where the C library cannot."""
    fn = _libc_function("malloc_trim", ctypes.c_size_t)
    if fn is None:
        return False
    fn(0)
    return True


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Cap the C allocator's heaps (see above); False where it cannot (not glibc) or the
    environment decides (`MALLOC_ARENA_MAX`)."""
    if "MALLOC_ARENA_MAX" in os.environ:
        return False
    mallopt = _libc_function("mallopt", ctypes.c_int, ctypes.c_int)
    return mallopt is not None and bool(mallopt(_M_ARENA_MAX, arenas))


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
