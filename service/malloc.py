"""The C allocator's two settings: freed memory given back, and the number of heaps capped.

A leaf module (ctypes, functools, os): `vaultgate` caps the heaps first thing in `main`, before
the stdio front starts its threads, without importing asyncio or logging for it.

A cold index of 10,000 notes allocates and frees a batch's parsed rows, SQLite statements and
FTS buffers again and again. glibc's allocator keeps freed chunks for reuse and returns the top
of a heap only past a threshold, so the process's resident memory kept the high-water mark of
every batch and climbed through the load. `trim()` asks glibc to release what is free now
(`malloc_trim(0)`: up to ~30 ms, so callers run it in a worker thread); the cold build's peak
RSS fell by about 8 MB. On a C library without `malloc_trim` (musl, macOS) it does nothing.

`limit_arenas()` caps glibc's heaps ("arenas") at two. glibc gives threads heaps of their own,
up to eight per CPU, and each keeps its freed memory: the event loop, the SQLite connections'
threads, the worker threads of `asyncio.to_thread`, the stdio front's reader and writer and the
file watcher each grew one. Over an hour of mixed calls the server peaked at 174 MB with them
and at 154 MB with two (and the minute's trim, `service.heap`). A thread keeps the heap it was
given, so the cap only holds for threads whose first allocation comes after it: it is set
before the first thread starts (the stdio front's, in `service.__main__.main`). Python's own
small objects never come from these heaps and the threads mostly take turns under the GIL, so
two are enough. `MALLOC_ARENA_MAX` in the environment, if set, is left to rule.
"""

from __future__ import annotations

import ctypes
import functools
import os
from typing import Any

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
