"""Python's cyclic garbage collector, set for a server that keeps a large heap for its lifetime.

A full collection walks every container object the interpreter tracks. A server over 10,000
notes holds ~200,000 of them for good (modules, the tool registry and its schemas, the note
names, settings, pydantic's validators), and with the default thresholds (700, 10, 10) a busy
server walked them all every 2-3 seconds: under 32 agents (`bench_mixed`) 17-18 full
collections in 45 s took 2.8-3.0 s, ~160 ms each with the event loop stopped, and all
collections together 5 s, 11 % of a core. `Collector`, a component of a server process, does
three things (the first two together: 2-3 young collections in the same 45 s and nothing else, docs/benchmarks.md):
- at start, the youngest generation's threshold goes from 700 to `YOUNG` allocations: objects of
  one call mostly die with it before a collection sees them, so fewer survive into the older
  generations that are walked again and again;
- once every vault's index is ready (the start-up heap is built) and the callers pause for a
  second (`service.activity`; at most a minute), one collection and `gc.freeze()`:
  what is alive then moves to a permanent generation no later collection walks.
  Reference counting still frees those objects when they are dropped; only a reference cycle
  among them would stay, and the start-up heap is not dropped while the server runs;
- every `SWEEP_EVERY_S`, at a pause in the calls, a full collection of what came after the
  freeze (well under 1 ms in an idle 10k-note server whose 134,000 start-up objects are
  frozen; walking those too took 280 ms on a loaded machine). Left to the thresholds, the oldest
  generation is collected after 100 young collections, 2 million container allocations: at 15
  calls a second that is rarer than hourly, and the reference cycles that reached it meanwhile
  stay until then. Soaks are noisy here: one 30-minute pair rose 12.7 MB/h with the first two
  changes against 5.0 without; a later 25-minute pair without and with the sweep, 7.2 and 5.8.
At stop the permanent generation is handed back to the collector and the thresholds restored,
so an embedding program that starts and stops an app is left as it was. It is used only where
vaultgate owns the process (`vaultgate serve`, `vaultgate stdio`): an app embedded in another
program leaves that program's collector alone. Touches nothing but the interpreter's collector.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Iterable
from typing import Protocol

from service.activity import Activity
from service.tasks import cancel_and_wait

log = logging.getLogger("vaultgate.collector")
YOUNG = 20_000  # allocations (net of frees) of container objects between young collections
READY_WAIT_S = 3600.0
FREEZE_WAIT_S = 60.0  # for a pause in the calls; a server never idle freezes after this anyway
SWEEP_EVERY_S = 300.0  # a full collection of what came after the freeze, at the next pause


class Ready(Protocol):
    """What the freeze waits for: a vault's indexer (`service.indexer.runner.VaultIndexer`)."""

    async def wait_ready(self, within: float) -> None: ...


class Collector:
    name = "collector"

    def __init__(
        self,
        indexers: Iterable[Ready],
        activity: Activity | None = None,
        young: int = YOUNG,
        sweep_every_s: float = SWEEP_EVERY_S,
    ) -> None:
        self.indexers = list(indexers)
        self.activity = activity
        self.young = young
        self.sweep_every_s = sweep_every_s
        self.frozen = 0  # objects moved to the permanent generation
        self.sweeps = 0  # full collections since the freeze
        self._saved: tuple[int, int, int] | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._saved = gc.get_threshold()
        gc.set_threshold(self.young, self._saved[1], self._saved[2])
        self._task = asyncio.create_task(self._freeze_when_ready(), name=self.name)

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        if self.frozen:
            gc.unfreeze()
            self.frozen = 0
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    async def _freeze_when_ready(self) -> None:
        for indexer in self.indexers:
            while True:
                with contextlib.suppress(TimeoutError):
                    await indexer.wait_ready(READY_WAIT_S)
                    break
        await self._pause()  # the collection stops the event loop ~0.1-0.2 s: not mid-burst
        gc.collect()
        gc.freeze()
        self.frozen = gc.get_freeze_count()
        log.info("collector: %d start-up objects frozen", self.frozen)
        while True:
            await asyncio.sleep(self.sweep_every_s)
            await self._pause()
            gc.collect()
            self.sweeps += 1

    async def _pause(self) -> None:
        if self.activity is not None:
            await self.activity.quiet(within=FREEZE_WAIT_S)
