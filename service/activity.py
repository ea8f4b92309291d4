"""Whether callers are busy with the server: background work that can wait gives way to them.

The dispatcher counts the tool calls running and notes when the last one began. Background
work that only prepares for later calls (the secret prescan of long notes, the collector's
freeze of the start-up heap, the trigram rebuild after a bulk load, which holds the index's
writer for seconds) waits in `quiet` until no call runs and none began for a while.
Python runs one thread at a time: a background thread busy in Python holds the interpreter in
5 ms turns, so a call that arrives meanwhile waits for turns. Right after a start that made
the first reads of a stdio client 3-10 times slower for the seconds the start-up work took.
Touches nothing; reading it is free. Work in a worker thread that cannot wait for a pause
(the reconcile after a start, which brings the index in line with the vault) gives its turns to
the calls instead (`GiveWay`): while a call runs it waits, a little at a time and within a
budget, so a warm restart's first calls do not share the interpreter with a scan of 100,000
files (docs/benchmarks.md, "warm restart"), and the scan still ends soon under steady calls.
Worker threads that are not tied to one app (the embedding model's batch threads, shared by the
process) ask `calls_pause` instead: it waits while a call of any app in the process runs or
began just now, a little at a time, so a burst of calls does not share the cores and the
interpreter with the model between its texts (docs/benchmarks.md, "read_note while a backlog
embeds"). A consolidation run's worker thread asks `calls_pause` among its own app's calls
(`service.plane.job`), and `run_consolidation` waiting for the run it started is set `aside`:
such a call does no work, and the run would otherwise wait for its own caller.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import weakref
from collections.abc import Callable, Collection, Iterator

QUIET_S = 1.0  # no call running and none begun for this long: the callers have paused
GIVE_WAY_STEP_S = 0.02  # a worker thread waits at most this long for the calls at a time...
GIVE_WAY_BUDGET_S = 0.5  # ...and this long in all (one `GiveWay`: one reconcile)
_LIVE: weakref.WeakSet[Activity] = weakref.WeakSet()  # every app's activity in this process (`calls_pause`)


class Activity:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.running = 0
        self.last = float("-inf")  # when the last call began (`clock` seconds)
        self._idle = asyncio.Event()  # set while no call runs
        self._idle.set()
        self.idle_now = threading.Event()  # the same, for worker threads (`GiveWay`)
        self.idle_now.set()
        _LIVE.add(self)

    def begin(self) -> None:
        self.running += 1
        self.last = self._clock()
        self._idle.clear()
        self.idle_now.clear()

    def end(self) -> None:
        self.running -= 1
        if not self.running:
            self._idle.set()
            self.idle_now.set()

    @contextlib.contextmanager
    def aside(self) -> Iterator[None]:
        """Within: the current call only waits for background work (a consolidation run it
        started), so it does not count as running and that work does not give way to it."""
        counted = self.running > 0  # (a handler called outside the dispatcher is not counted)
        if counted:
            self.end()
        try:
            yield
        finally:
            if counted:
                self.running += 1
                self._idle.clear()
                self.idle_now.clear()

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


class GiveWay:
    """Called now and then by a worker thread busy in Python: waits while a call runs, at most
    `step_s` at a time and `budget_s` in all, then never again (the work must end)."""

    def __init__(
        self,
        activity: Activity,
        step_s: float = GIVE_WAY_STEP_S,
        budget_s: float = GIVE_WAY_BUDGET_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.activity = activity
        self.step_s = step_s
        self.left = budget_s
        self._clock = clock

    def __call__(self) -> None:
        if self.left <= 0 or not self.activity.running:
            return
        started = self._clock()
        self.activity.idle_now.wait(min(self.step_s, self.left))
        self.left -= self._clock() - started


def calls_pause(
    quiet_s: float,
    within: float,
    clock: Callable[[], float] = time.monotonic,
    among: Collection[Activity] | None = None,
) -> float:
    """On a worker thread of the process (not the event loop): wait while a call of any app in the
    process (or of the apps `among`) runs or began less than `quiet_s` ago, at most `within`
    seconds; the seconds waited."""
    started = clock()
    while True:
        left = within - (clock() - started)
        if left <= 0:
            return within
        try:
            live = list(_LIVE if among is None else among)
        except RuntimeError:  # an app was made meanwhile (the set changed size): go on this time
            return clock() - started
        since = [(a, a._clock() - a.last) for a in live if a.running or a._clock() - a.last < quiet_s]
        if not since:
            return clock() - started
        calls, ago = since[0]
        if calls.running:
            calls.idle_now.wait(left)  # returns as soon as the last call running ends
        else:  # `ago` may be past `quiet_s`: a long call that was running when it was read has ended
            time.sleep(max(0.0, min(quiet_s - ago, left)))
