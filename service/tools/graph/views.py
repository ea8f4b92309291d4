"""The link graph one caller may see, for the graph tools, kept per index generation.

A `View` is the `NoteGraph` (service.graph.analytics) of the vault's Markdown notes with every
note the caller may not read left out before anything is computed, so no score, count, path or
community says anything about a denied note. What is kept per vault indexer is for the index
generation it was built at (the next call after any index change builds again): the notes'
titles, the vault's `LinkGraph` (service.graph.adjacency, also GraphRAG's expansion: `links`)
and the views, one per set of denied notes (a caller no rule restricts shares the vault-wide
view), a few at a time; what is computed on a view (PageRank, betweenness, communities, the
mention index) is memoised on it. Reads the index (`notes`, `links`) in the readers' threads.

Builds (seconds at 100k notes) are single flight: each is one asyncio task per generation and
thing built, shared by every call that needs it meanwhile, off the event loop (readers' threads,
`computed`). A call waits for a build until its budget (`[limits] max_eval_seconds`) ends; past
it the call answers `index_unavailable` (details.reason `graph_building`, retryable) and the
build goes on, so the next call finds it done; the budget is the call's (`call_deadline`: what
graphrag_query's search used of it is gone). A call that is cancelled (notifications/cancelled,
its connection gone) stops a build no other call waits for, and the server stopping stops every
build under way (`stop_builds`, from the query warm-up's stop, before the readers close): the
notes' and links' reads and every stage of the graph build check their `Limit`'s stop flag.
A build of a generation that is no longer current ends for its
callers and is kept by nobody (it never replaces a newer one); while it runs, a call of a newer
generation waits for it to end before its own build of the same thing starts (one link load at a
time, holding one reader), and a call past its budget is answered with what the last build that
ended made (`latest`: the graph as of a moment ago) rather than `graph_building`, so a vault
written all the time still gets answers. A restricted caller's view is its own (never the unrestricted one)
and holds only the notes it may read.

`computed` runs such work (the build, the analytics) in a daemon thread of its own with a
`Limit`: the call's budget as its deadline, and its stop flag set when the call ends anyway
(cancelled by the client, its connection gone, the server stopping), so the work ends at its
next check instead of running on; a daemon thread never keeps a stopping process alive (an
`asyncio.to_thread` worker did: the process outlived SIGTERM). `release_idle` drops what is kept
of a vault no call has used for a while (the query images' idle release calls it); a vault with
a build under way is in use.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from service.errors import IndexUnavailable
from service.gcpause import paused
from service.graph.adjacency import LinkGraph
from service.graph.analytics import Limit, NoteGraph, is_note
from service.graph.mentions import NameIndex
from service.graph.queries import GraphQueries
from service.indexer.runner import indexer_of
from service.tasks import cancel_and_wait
from service.tools.context import ToolContext
from service.tools.search_common import readable

Note = tuple[str, str, list[str]]  # (path, title, aliases)
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
class _Build:
    """One build shared by every call that needs it (single flight): its task, how many calls
    wait for it, and when it started."""

    task: asyncio.Task[Any]
    started: float = field(default_factory=time.monotonic)
    waiters: int = 0


@dataclass(eq=False)
class _Generation:
    """What is kept of one vault at one index generation: the notes, the links, the views (by
    denied notes), the builds under way (by what they make: 'notes', 'links', a view's key)."""

    number: int
    done: dict[Any, Any] = field(default_factory=dict)
    building: dict[Any, _Build] = field(default_factory=dict)
    used: float = field(default_factory=time.monotonic)  # last asked for, or last build ended
    older: dict[Any, _Build] = field(default_factory=dict)  # earlier generations' builds still running
    # The last build that ended, of any generation, by what it makes: (generation, result); one
    # dict shared along a vault's generations (what a call past its budget is answered with)
    latest: dict[Any, tuple[int, Any]] = field(default_factory=dict)


class Views:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: weakref.WeakKeyDictionary[Any, _Generation] = weakref.WeakKeyDictionary()
        self.builds = 0  # builds started (notes, links, views), for tests

    def _generation(self, indexer: Any) -> _Generation:
        """The kept state of `indexer`'s current generation (a fresh one after an index change:
        builds of an older generation finish for their callers and are kept by nobody)."""
        number = int(indexer.generation)
        with self._lock:
            kept = self._kept.get(indexer)
            if kept is None:
                kept = self._kept[indexer] = _Generation(number)
            elif kept.number != number:
                running = {k: b for k, b in (kept.older | kept.building).items() if not b.task.done()}
                kept = self._kept[indexer] = _Generation(number, older=running, latest=kept.latest)
            kept.used = time.monotonic()
            return kept

    async def _shared(
        self, kept: _Generation, key: Any, make: Callable[[], Awaitable[T]], deadline: float, vault: str
    ) -> T:
        """`make()`'s result, built once for every caller of this generation (module docstring):
        awaited until `deadline`, past it `index_unavailable` (reason graph_building) while the
        build goes on for the next call; a cancelled caller that was its last waiter stops it."""
        with self._lock:
            if key in kept.done:
                return kept.done[key]  # type: ignore[no-any-return]
            older = kept.older.get(key) if key not in kept.building else None
        if older is not None and not older.task.done():  # one build of a thing at a time: it ends first
            left = None if deadline == math.inf else max(deadline - time.monotonic(), 0)
            await asyncio.wait({older.task}, timeout=left)
            if not older.task.done():
                return self._meanwhile(kept, key, older, vault)  # type: ignore[no-any-return]
        with self._lock:
            if key in kept.done:
                return kept.done[key]  # type: ignore[no-any-return]
            build = kept.building.get(key)
            if build is None:
                build = kept.building[key] = _Build(asyncio.ensure_future(make()))
                self.builds += 1
                build.task.add_done_callback(lambda task: self._ended(kept, key, build, task))
            build.waiters += 1
        try:
            left = None if deadline == math.inf else max(deadline - time.monotonic(), 0)
            return await asyncio.wait_for(asyncio.shield(build.task), left)
        except TimeoutError:
            if build.task.done():
                return build.task.result()  # type: ignore[no-any-return]
            return self._meanwhile(kept, key, build, vault)  # type: ignore[no-any-return]
        except asyncio.CancelledError:
            with self._lock:  # nobody else waits: the build stops at its next check (`Limit.stop`)
                if build.waiters == 1 and not build.task.done():
                    if kept.building.get(key) is build:
                        del kept.building[key]  # the next caller starts afresh
                    build.task.cancel()
            raise
        finally:
            with self._lock:
                build.waiters -= 1

    def _meanwhile(self, kept: _Generation, key: Any, build: _Build, vault: str) -> Any:
        """A call's answer past its budget while `build` runs: what the last build that ended
        made (the graph as of a moment ago), else `index_unavailable` (reason graph_building)."""
        with self._lock:
            last = kept.latest.get(key)
        if last is not None:
            return last[1]
        took = round(time.monotonic() - build.started, 1)
        raise IndexUnavailable(
            f"the link graph of vault {vault!r} is still being built ({took} s so far)",
            details={"vault": vault, "reason": "graph_building", "building_s": took},
            hint="The build goes on in the background (seconds at 100,000 notes): retry shortly.",
        )

    def _ended(self, kept: _Generation, key: Any, build: _Build, task: asyncio.Task[Any]) -> None:
        with self._lock:
            if kept.building.get(key) is build:
                del kept.building[key]
            if not task.cancelled() and task.exception() is None:
                kept.done[key] = task.result()
                kept.used = time.monotonic()
                if kept.latest.get(key, (-1, None))[0] <= kept.number:
                    kept.latest[key] = (kept.number, task.result())

    async def links(self, ctx: ToolContext) -> LinkGraph:
        """The vault's `LinkGraph` at the current index generation (built once, kept, shared)."""
        indexer = indexer_of(ctx.vault)
        kept = self._generation(indexer) if indexer is not None else _Generation(-1)
        return await self._links(ctx, kept, call_deadline(ctx))

    async def _links(self, ctx: ToolContext, kept: _Generation, deadline: float) -> LinkGraph:
        vid, db = ctx.vault.id, ctx.services.db

        async def make() -> LinkGraph:
            limit = Limit()
            try:
                return await db.run_read(lambda conn: LinkGraph.load(conn, vid, limit))
            finally:
                limit.stop.set()  # cancelled: the load ends at its next check

        return await self._shared(kept, "links", make, deadline, vid)

    async def _notes(self, ctx: ToolContext, kept: _Generation, deadline: float) -> list[Note]:
        vid = ctx.vault.id

        async def make() -> list[Note]:
            limit = Limit()
            try:
                return await GraphQueries(ctx.services.db).note_titles(vid, limit)
            finally:
                limit.stop.set()  # cancelled: the read ends at its next check

        return await self._shared(kept, "notes", make, deadline, vid)

    async def get(self, ctx: ToolContext) -> View:
        """The caller's view: its build (the notes and links, read side by side, then the graph)
        is one shared task that goes on when the caller's budget ends (module docstring)."""
        vid = ctx.vault.id
        deadline = call_deadline(ctx)
        indexer = indexer_of(ctx.vault)
        can_read = readable(ctx)
        kept = self._generation(indexer) if indexer is not None else _Generation(-1)
        if can_read.everything and frozenset() in kept.done:
            return kept.done[frozenset()]  # type: ignore[no-any-return]  # the common case
        denied: frozenset[str] = frozenset()
        if not can_read.everything:
            denied = frozenset(p for p, _, _ in await self._notes(ctx, kept, deadline) if not can_read(p))
        key: Any = denied if can_read.everything else ("restricted", denied)

        async def make() -> View:
            notes, links = await asyncio.gather(self._notes(ctx, kept, math.inf), self._links(ctx, kept, math.inf))
            visible = [n for n in notes if n[0] not in denied and is_note(n[0])]

            def build(limit: Limit) -> View:
                # a restricted caller's graph holds its visible notes only, never a link's other
                # end (a note made in a denied folder after the notes were read)
                keep = None if can_read.everything else {p for p, _, _ in visible}.__contains__
                with paused():  # no full collection (it holds the event loop) over 10^5 new objects
                    graph = NoteGraph.from_links(links.numbered(), (p for p, _, _ in visible), keep, limit)
                return View(graph, visible)

            return await computed(build)

        view = await self._shared(kept, key, make, deadline, vid)
        with self._lock:  # a few views per generation (distinct sets of denied notes)
            views = [k for k in kept.done if k not in ("notes", "links")]
            for old in views[: max(len(views) - KEPT, 0)]:
                kept.done.pop(old, None)
        return view

    async def stop(self, indexers: list[Any]) -> int:
        """Cancel every build under way of these vault indexers (the server stops) and wait until
        each task has ended: a link load or graph build still running stops at its next check of
        its `Limit` (a few thousand rows), so the readers close at once. How many were stopped."""
        with self._lock:
            kept = [self._kept.get(indexer) for indexer in indexers]
            builds = [b for k in kept if k is not None for b in (k.older | k.building).values() if not b.task.done()]
        for build in builds:
            await cancel_and_wait(build.task)
        return len(builds)

    def release_idle(self, idle_s: float) -> int:
        """Drop what is kept of the vaults no graph call has used in `idle_s` seconds; a vault
        with a build under way is in use (its build is kept when it ends)."""
        cutoff = time.monotonic() - idle_s
        with self._lock:
            idle = [
                key
                for key, kept in self._kept.items()
                if kept.used <= cutoff and not any(not b.task.done() for b in (kept.older | kept.building).values())
            ]
            for key in idle:
                del self._kept[key]
        return len(idle)


def call_deadline(ctx: ToolContext) -> float:
    """When the call's budget (`[limits] max_eval_seconds`) ends: fixed at the first ask of the
    call (a graph tool asks first thing: graphrag_query before its search), so a call's wait
    for a build is what its earlier steps left of its budget, not a new budget."""
    deadline: float = ctx.notes.setdefault(
        "graph_deadline", time.monotonic() + ctx.services.settings.limits.max_eval_seconds
    )
    return deadline


VIEWS = Views()


def release_idle(idle_s: float) -> int:
    """Drop the graphs (views and the links they were built from) no call has used for `idle_s`
    seconds, for the query images' idle release (`[search] query_images_idle_s`); how many."""
    return VIEWS.release_idle(idle_s)


async def stop_builds(indexers: list[Any]) -> int:
    """Stop the graph builds under way of these vault indexers (the server stops: `Views.stop`)."""
    return await VIEWS.stop(indexers)
