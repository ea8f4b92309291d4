"""The link graph one caller may see, for the graph analytics tools, kept per index generation.

A `View` is the `NoteGraph` (service.graph.analytics) of the vault's Markdown notes with every
note the caller may not read left out before anything is computed, so no score, count, path or
community says anything about a denied note. Views are kept per vault indexer for the index
generation they were built at (the next call after any index change builds again), one per set
of denied notes (a caller no rule restricts shares the vault-wide view), a few at a time; what
is computed on a view (PageRank, betweenness, communities, the mention index) is memoised on it.
Reads the index (`notes`, `links`) through `service.graph.queries` and the in-memory links of
`graphrag.GRAPHS`.

`computed` runs such work (the build, the analytics) in a daemon thread of its own with a
`Limit`: the call's budget (`[limits] max_eval_seconds`) as its deadline, and its stop flag set
when the call ends anyway (cancelled by the client, its connection gone, the server stopping),
so the work ends at its next check instead of running on; a daemon thread never keeps a
stopping process alive (an `asyncio.to_thread` worker did: the process outlived SIGTERM).
`release_idle` drops the views and link graphs no call has used for a while (the query images'
idle release calls it: at 100k notes they held ~350 MB for as long as the server ran).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from service.graph.adjacency import LinkGraph
from service.graph.analytics import Limit, NoteGraph, is_note
from service.graph.mentions import NameIndex
from service.graph.queries import GraphQueries
from service.indexer.runner import indexer_of
from service.tools.context import ToolContext
from service.tools.graph.graphrag import GRAPHS
from service.tools.search_common import readable, run

KEPT = 4  # views kept per vault and generation (distinct sets of denied notes)
T = TypeVar("T")


async def computed(fn: Callable[[Limit], T], seconds: float | None = None) -> T:
    """`fn(limit)` in a daemon thread, awaited; `limit.stop` is set once this returns or is
    cancelled (module docstring), `limit.deadline` is `seconds` from now (None: none)."""
    limit = Limit(deadline=time.monotonic() + seconds if seconds is not None else float("inf"))
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if done.done():  # the call was cancelled meanwhile
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def work() -> None:
        result: T | None = None
        error: BaseException | None = None
        try:
            result = fn(limit)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting call
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: the server stopped, nobody waits
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name="vaultgate-graph", daemon=True).start()
    try:
        return await done
    finally:
        limit.stop.set()


@dataclass(eq=False)
class View:
    graph: NoteGraph
    notes: list[tuple[str, str, list[str]]]  # (path, title, aliases) of the visible notes, by path
    titles: dict[str, str] = field(init=False)
    _names: NameIndex | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self) -> None:
        self.titles = {p: t for p, t, _ in self.notes}

    def names(self) -> NameIndex:
        with self._lock:
            if self._names is None:
                self._names = NameIndex(self.notes)
            return self._names


@dataclass(eq=False)
class _Generation:
    number: int
    notes: list[tuple[str, str, list[str]]]
    views: dict[frozenset[str], View] = field(default_factory=dict)
    used: float = field(default_factory=time.monotonic)  # last asked for


class Views:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: weakref.WeakKeyDictionary[Any, _Generation] = weakref.WeakKeyDictionary()

    async def get(self, ctx: ToolContext) -> View:
        vid = ctx.vault.id
        indexer = indexer_of(ctx.vault)
        can_read = readable(ctx)
        kept = None
        if indexer is not None:
            with self._lock:
                kept = self._kept.get(indexer)
            if kept is not None and kept.number != int(indexer.generation):
                kept = None
            if kept is not None:
                kept.used = time.monotonic()
            if kept is not None and can_read.everything and frozenset() in kept.views:
                return kept.views[frozenset()]  # the common case: no query at all
        generation = int(indexer.generation) if indexer is not None else -1
        notes = kept.notes if kept is not None else await GraphQueries(ctx.services.db).note_titles(vid)
        denied = frozenset() if can_read.everything else frozenset(p for p, _, _ in notes if not can_read(p))
        if kept is not None and denied in kept.views:
            return kept.views[denied]
        links = await run(ctx, lambda conn: GRAPHS.get(conn, vid, indexer) if indexer else LinkGraph.load(conn, vid))
        visible = [n for n in notes if n[0] not in denied and is_note(n[0])]

        def build(_: Limit) -> View:
            allowed = {p for p, _, _ in visible}
            keep = None if not denied else allowed.__contains__
            return View(NoteGraph.from_outlinks(links.outlinks, (p for p, _, _ in visible), keep), visible)

        view = await computed(build)
        if indexer is not None:
            with self._lock:
                current = self._kept.get(indexer)
                if current is None or current.number != generation:
                    current = self._kept[indexer] = _Generation(generation, notes)
                if len(current.views) >= KEPT:
                    current.views.pop(next(iter(current.views)))
                current.views[denied] = view
        return view

    def release_idle(self, idle_s: float) -> int:
        """Drop the views of vaults no graph call has used in `idle_s` seconds."""
        cutoff = time.monotonic() - idle_s
        with self._lock:
            idle = [key for key, kept in self._kept.items() if kept.used <= cutoff]
            for key in idle:
                del self._kept[key]
        return len(idle)


VIEWS = Views()


def release_idle(idle_s: float) -> int:
    """Drop the graphs (views and the links they were built from) no call has used for `idle_s`
    seconds, for the query images' idle release (`[search] query_images_idle_s`); how many."""
    return VIEWS.release_idle(idle_s) + GRAPHS.release_idle(idle_s)
