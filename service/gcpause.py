"""Pausing Python's cyclic garbage collector while a query allocates many short-lived objects.

A Bases or Dataview query over 10,000 notes creates tens of thousands of row objects that live
until the query ends. Each young collection walks them again and promotes them, and every few
queries the growth of the oldest generation triggers a full collection that walks every object
of the in-memory index images (some 10^6): work that finds nothing to free. `paused()`
turns the collector off for the duration of a block and back on when the last concurrent block
(from any thread) ends, if it was on before; reference counting still frees everything that is
not in a cycle, and cycles made meanwhile are collected afterwards as usual. Touches only the
`gc` module's switch.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_restore = False


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block (nested and concurrent blocks share one pause)."""
    global _depth, _restore
    with _lock:
        if _depth == 0:
            _restore = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _restore:
                gc.enable()
