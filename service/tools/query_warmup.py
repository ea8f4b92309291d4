"""Keeps each vault's Bases snapshot and Dataview pages current in the background.

Both query engines read an in-memory image of the index (`service.bases.source`,
`service.dataview.pages`); building one takes seconds on a 10k-note vault, and the first
`query_base` / `search_dql` call of a vault builds its own. `QueryWarmup` is an app component
with one task per vault that follows the indexer's `generation`: after a change and `quiet_s`
seconds without another one, it refreshes the images that exist incrementally (only the notes
that changed are read again), so a query after an edit usually finds them current. With
`[search] prewarm_queries` it also builds both once the vault's first index is ready (start-up
and the first reconcile are not slowed); without it, a vault nobody queries this way holds no
image in memory. With `[search] query_images_idle_s` (default 600) it drops an image no query has read for
that long (a refresh is no use) and hands the memory back (a full collection, `malloc.trim`):
at 10^5 notes the two images hold ~235 MB of objects; the next query builds its image again
(seconds at 10^5 notes). A query never waits for the warm-up; at worst it builds (or waits for) the same
image itself. Once a vault's index is ready, and again after each burst of changes, it stores
the sensitive-content verdict of every note whose version has none (`secret_verdicts`,
`service.tools.sensitive.unjudged` / `store`): searches then read verdicts instead of scanning
notes for secrets. Before that, at the first pause in the calls, it readies the first write: the
vault's note-name list (`service.indexer.names`, ~30 ms for 10k notes) and the notes tools
(their import, ~25 ms), which a fresh server's first `create_note` otherwise paid for (~45 ms
against ~8 ms for the next one). Touches the index read-only, through `Database.run_read`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

from service import malloc
from service.activity import Activity
from service.indexer.runner import indexer_of
from service.retrieval.sensitive import Guard
from service.storage.db import Database
from service.tasks import cancel_and_wait
from service.tools.context import note_name_loader
from service.tools.sensitive import store, unjudged
from service.tools.spec import Catalog
from service.vault.vault import Vault

log = logging.getLogger(__name__)
JUDGE_BATCH = 400  # notes per reader-thread call at most
JUDGE_BYTES = 1 << 20  # and no more than this much text (~25 ms of scanning, the interpreter held)
BASES = "service.tools.obsidian.bases"  # snapshot_built, snapshot_of, release_idle
DATAVIEW = "service.tools.dataview.tools"  # pages_built, pages_of, release_idle
GRAPH = "service.tools.graph.views"  # release_idle, stop_builds: the graph tools' views and link graphs
IDLE_CHECK_MAX_S = 60.0  # how often idle images are looked for, at most
FIRST_WRITE = "create_note"  # its domain's tools are imported ahead (`catalog`)


def _engine(module: str, build: bool) -> Any:
    """A query engine's tool module: imported when an image is to be built, else only if already
    imported (no image exists before; a server nobody queries this way never imports the
    engines, ~60 ms of a stdio start that nothing calls). A module another thread is still
    importing counts as not imported: its functions may not exist yet."""
    if build:
        return importlib.import_module(module)
    found = sys.modules.get(module)
    if found is not None and getattr(found.__spec__, "_initializing", False):
        return None  # another thread is importing it (tools/list's registry, off the loop): half made
    return found


class QueryWarmup:
    name = "query-warmup"

    def __init__(
        self,
        vaults: dict[str, Vault],
        db: Database,
        *,
        prewarm: bool = False,
        quiet_s: float = 2.0,
        guards: Callable[[Vault], Guard] | None = None,
        activity: Activity | None = None,
        idle_s: float = 0.0,
        catalog: Catalog | None = None,
    ) -> None:
        """`catalog`: the tool registry, whose notes tools are imported once an index is ready
        (None: left to the first call)."""
        self.vaults = vaults
        self.catalog = catalog
        self.names_warmed = 0  # vaults whose note-name list was read ahead (for tests)
        self.judged = 0  # secret verdicts stored
        self.idle_s = idle_s  # 0: images are kept however long no query reads them
        self.released = 0  # images dropped for idleness
        self.db = db
        self.guards = guards
        self.activity = activity
        self.prewarm = prewarm
        self.quiet_s = quiet_s
        self.built: dict[str, int] = {}  # vault id -> index generation of the last refresh
        self._tasks: dict[str, asyncio.Task[None]] = {}

    async def start(self) -> None:
        self.follow_new()
        if self.idle_s > 0:
            self._tasks[""] = asyncio.create_task(self._release_idle(), name=f"{self.name}:idle")

    def follow_new(self) -> None:
        """Start following vaults added since (`add_vault`)."""
        for vault in self.vaults.values():
            if vault.id not in self._tasks:
                self._tasks[vault.id] = asyncio.create_task(self._follow(vault), name=f"{self.name}:{vault.id}")

    async def stop(self) -> None:
        # A vault's follower adds its secrets task once the index is ready, which may be while an
        # earlier task is being cancelled here: each pass cancels what the last one left.
        while self._tasks:
            tasks = list(self._tasks.values())
            self._tasks.clear()
            for task in tasks:
                await cancel_and_wait(task)
        graph = _engine(GRAPH, False)  # the link-graph builds under way end too (the readers close next)
        if graph is not None:
            await graph.stop_builds([indexer_of(vault) for vault in self.vaults.values()])

    async def _release_idle(self) -> None:
        """Every `idle_s` / 4 (at most a minute): drop the images no query has read for `idle_s`
        seconds, then collect and trim once in a worker thread, so the process's resident memory
        falls back (the pages hold reference cycles; glibc keeps freed memory until a trim)."""
        while True:
            await asyncio.sleep(min(self.idle_s / 4, IDLE_CHECK_MAX_S))
            dropped = 0
            for module in (BASES, DATAVIEW, GRAPH):
                engine = _engine(module, False)
                if engine is not None:
                    dropped += engine.release_idle(self.idle_s)
            if dropped:
                self.released += dropped
                await asyncio.to_thread(_give_back)

    async def _follow(self, vault: Vault) -> None:
        indexer = indexer_of(vault)
        if indexer is None:
            return
        while True:
            with contextlib.suppress(TimeoutError):
                await indexer.wait_ready(3600)
                break
        await self._first_write(vault, indexer)
        if self.guards is not None:
            judging = self._judging(vault, indexer)
            self._tasks[f"{vault.id}:secrets"] = asyncio.create_task(judging, name=f"{self.name}:{vault.id}:secrets")
        seen = -1
        while True:
            if indexer.generation != seen:
                seen = indexer.generation
                first = self.prewarm and vault.id not in self.built
                try:
                    bases, dataview = _engine(BASES, first), _engine(DATAVIEW, first)
                    if bases is not None and (first or bases.snapshot_built(vault)):
                        await bases.snapshot_of(vault, self.db, query=False)
                    if dataview is not None and (first or dataview.pages_built(vault, self.db)):
                        await dataview.pages_of(vault, self.db, seen)
                    self.built[vault.id] = seen
                except Exception:  # a query will build it (and report what is wrong)
                    log.exception("refreshing the query images of %s failed", vault.id)
            await self._changed(indexer, seen)

    async def _changed(self, indexer: Any, seen: int) -> None:
        """Once the index has moved past generation `seen` and then been quiet for `quiet_s`."""
        with contextlib.suppress(TimeoutError):
            await indexer.wait_for(partial(_moved, indexer, seen), within=3600)
        while True:  # a burst of writes: wait until it has been quiet for quiet_s
            now = indexer.generation
            await asyncio.sleep(self.quiet_s)
            if indexer.generation == now:
                break

    async def _judging(self, vault: Vault, indexer: Any) -> None:
        """`_judge` once the index is ready, then after each burst of changes (a task of its
        own: while calls keep it waiting, the query images are still refreshed)."""
        seen = -1
        while True:
            if indexer.generation != seen:
                seen = indexer.generation
                await self._judge(vault)
            await self._changed(indexer, seen)

    async def _first_write(self, vault: Vault, indexer: Any) -> None:
        """At the first pause in the calls after the index is ready: read the vault's note names
        (what every new note's address is resolved against) and import the notes tools. Both
        happen as a call would do them; a call that comes first has done them itself."""
        if self.activity is not None:
            await self.activity.quiet()
        try:
            await indexer.names.get(note_name_loader(self.db, vault.id))
            self.names_warmed += 1
            if self.catalog is not None:
                self.catalog.get(FIRST_WRITE)
        except Exception:  # the first call reads them itself (and reports what is wrong)
            log.exception("reading the note names of %s ahead failed", vault.id)

    async def _judge(self, vault: Vault) -> None:
        """Store the sensitive-content verdict of every note of the vault whose indexed version
        has none under the vault's guard, so that searches read verdicts instead of scanning the
        notes they show (at 10^5 notes most of a page was never scanned: ~5-7 ms a search, and a
        200,000-character note alone ~7 ms). After ready and after each change: a pass over
        notes all judged already is one statement. In batches, each scanned on a pooled reader
        and stored by the writer, each once no call has run for a second (`activity`); a search
        meanwhile scans what it shows (and remembers it on the guard, by etag)."""
        if self.guards is None:
            return
        guard = self.guards(vault)
        after: int | None = 0
        try:
            while after is not None:
                if self.activity is not None:  # callers first: a batch holds the interpreter ~25 ms
                    await self.activity.quiet()
                scan = partial(
                    unjudged, guard, vault_id=vault.id, after=after, batch=JUDGE_BATCH, max_bytes=JUDGE_BYTES
                )
                after, judged = await self.db.run_scan(scan)  # every note's row when all are judged
                if judged:
                    await self.db.run_write(partial(store, guard, judged=judged))
                    self.judged += len(judged)
        except Exception:  # the searches scan what they show themselves
            log.exception("storing the secret verdicts of %s failed", vault.id)


def _give_back() -> None:
    gc.collect()
    malloc.trim()


def _moved(indexer: Any, seen: int) -> bool:
    return bool(indexer.generation != seen)
