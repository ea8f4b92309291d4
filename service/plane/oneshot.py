"""`once(fn)`: `fn` for one call, then let go of.

A database's work runs in its connection's own thread (aiosqlite), whose loop keeps its last job —
the function it was given — until its next job: a reader the pool does not use again for a while,
or the state database's writer until its next write, kept alive whatever that function's closure
held. A job's reads and its record close over what it read (the audit's 100k titles and notes,
its `spare`), which stayed alive through the jobs after it and after the run. Wrapped in `once`,
the function is dropped as it is called: the thread keeps an empty wrapper."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

A = TypeVar("A")
T = TypeVar("T")


def once(fn: Callable[[A], T]) -> Callable[[A], T]:
    held = [fn]

    def call(arg: A) -> T:
        return held.pop()(arg)

    return call
