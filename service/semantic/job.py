"""The embedding job of one vault: chunk what changed, embed what has no vector, fill sqlite-vec.

It follows the indexer: every applied batch (edits through vaultgate, edits by other programs
picked up by the watcher, a reindex) bumps the indexer's `generation`; the job wakes, waits
`debounce_ms` for more, and runs one pass:

1. notes whose chunks are missing or were made from other text are chunked again (in a worker
   thread) and their rows written (unchanged chunks keep their row and vector);
2. chunk texts with no vector for the model are embedded, `batch_size` at a time, and stored;
3. the sqlite-vec table catches up (new rows, rows of dropped chunks deleted).

The job keeps a floor per model: every chunk with an id up to it has a vector and its sqlite-vec
row. Steps 2 and 3 look only past it, so the pass after one edit reads the few rows it wrote
instead of walking every chunk of the vault (~170 + 40 ms at 60,000 chunks). Writing chunks
lowers the floor to the lowest id inserted (SQLite may reuse the id of a deleted row); a pass
that ends with nothing left raises it to the highest id; `kick` (reindex, settings) drops it.

Nothing here blocks start-up (the job waits for the index to be ready in the background),
writes (each write is one short transaction) or text search (inference runs off the event
loop). After a restart the same pass finds what is left: finished chunks are not redone.
When the model is unavailable the pass stops with `error` set and is tried again on the next
change or after `RETRY_SECONDS`.

The first pass that completes after start, and after each `kick`, logs one INFO line with the
vault's chunk and vector counts ("embeddings of vault … complete").

`wait_settled()` is the job's completion signal: it returns once a pass has covered the
indexer's current generation (or failed), without sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from service.activity import Activity
from service.embeddings.protocol import Embedder, Matrix
from service.errors import EmbeddingUnavailable
from service.indexer.runner import indexer_of
from service.semantic import store, vectors
from service.semantic.chunker import Chunk
from service.settings import EmbeddingSettings
from service.storage.db import Database
from service.tasks import cancel_and_wait
from service.vault.vault import Vault

if TYPE_CHECKING:
    from service.retrieval.sensitive import Guard

log = logging.getLogger(__name__)
RETRY_SECONDS = 60.0
CHUNK_NOTES = 64  # notes chunked per write
CHUNK_STEP = 8  # notes chunked per thread hop (a call waits at most for these to finish)
PENDING = 512  # chunk texts read per query of the backlog (then embedded batch_size at a time)
IN_FLIGHT = 2  # batches handed to the embedder at once (one embedding while the other is stored)
GIVE_WAY_QUIET_S = 0.01  # no call running and none begun for this long: a pause in the calls
GIVE_WAY_MAX_S = 1.0  # a batch waits at most this long for a pause
Progress = Callable[[int, int], Awaitable[None]]


class NoteChunker(Protocol):
    def chunks_of(self, src: store.Source) -> list[Chunk]: ...


class Engine(Protocol):
    """What the job uses of `SemanticEngine`."""

    settings: EmbeddingSettings
    db: Database
    cache: vectors.ScanCache
    dims: dict[str, int]
    guard: Callable[[Vault], Guard] | None

    def chunker(self) -> NoteChunker: ...

    def embedder(self) -> Embedder: ...

    async def counts(self, vault_id: str) -> store.Counts: ...

    async def stored_dim(self, model: str) -> int | None: ...

    async def warm_scan(self, vault_id: str) -> None: ...


class EmbeddingJob:
    def __init__(self, engine: Engine, vault: Vault, activity: Activity | None = None) -> None:
        self.engine = engine
        self.vault = vault
        self.activity = activity
        self.name = f"embeddings:{vault.id}"
        self.state = "waiting"  # waiting (for the index), embedding, idle, failed
        self.error: str | None = None
        self.embedded_total = 0  # vectors computed by this process
        self.rate: float | None = None  # chunks per second of the last pass that embedded
        self.last_pass: float | None = None
        self._tried_gen = -1  # the indexer generation the last pass (done or failed) covered
        self._announced = False  # the "embeddings complete" line was logged since start or the last kick
        self._canvases_dropped = False  # chunks an older build made of canvases: removed once
        self._floor: tuple[str, int] | None = None  # (model, id): every chunk up to id is embedded
        self._epoch = 0  # bumped by `kick`: a pass that began before it may not raise the floor
        self.reindex_since: float | None = None  # a reindex runs (`SemanticEngine.reindex`): since when
        self._reindex_epoch: int | None = None  # the epoch of its kick (None until it is kicked)
        self._cond = asyncio.Condition()
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.progress: Progress | None = None

    async def start(self) -> None:
        self._tasks = [asyncio.create_task(self._run(), name=self.name)]

    async def stop(self) -> None:
        for task in self._tasks:
            await cancel_and_wait(task)

    @property
    def caught_up(self) -> bool:
        """The last pass succeeded and covered every change the indexer has applied since."""
        ix = indexer_of(self.vault)
        gen = ix.generation if ix is not None else 0
        return self.state == "idle" and self._tried_gen >= gen and not self._wake.is_set()

    def kick(self, *, reindex: bool = False) -> None:
        """Run a pass now (reindex, settings change); `reindex`: the pass of the reindex begun
        (`begin_reindex`), which runs until a pass begun after this kick ends."""
        self._announced = False
        self._tried_gen = -1
        self._floor = None
        self._epoch += 1
        if reindex:
            self._reindex_epoch = self._epoch
        self._wake.set()

    def begin_reindex(self) -> tuple[float, bool]:
        """(when the reindex began, whether one was running already): a reindex is begun unless
        one runs; the caller resets the vault, then kicks with `reindex=True`."""
        if self.reindex_since is not None:
            return self.reindex_since, True
        self.reindex_since, self._reindex_epoch = time.time(), None
        return self.reindex_since, False

    async def wait_settled(self, within: float = 120.0) -> None:
        """Until a pass (done or failed) has covered every change the indexer applied so far."""
        ix = indexer_of(self.vault)

        def done() -> bool:
            gen = ix.generation if ix is not None else 0
            return self._tried_gen >= gen and not self._wake.is_set() and self.state in ("idle", "failed")

        async def waiter() -> None:
            async with self._cond:
                await self._cond.wait_for(done)

        try:
            await asyncio.wait_for(waiter(), within)
        except TimeoutError:  # say where the job stands: a wait that never ends is a bug to find
            gen = ix.generation if ix is not None else 0
            raise TimeoutError(
                f"embedding job of {self.vault.id} not settled after {within} s: state {self.state}"
                f" ({self.error}), pass of generation {self._tried_gen} of {gen}, woken {self._wake.is_set()},"
                f" indexer {ix.state if ix is not None else None}, waiting in {_awaiting(self._tasks[0])}"
            ) from None

    async def _notify(self) -> None:
        async with self._cond:
            self._cond.notify_all()

    async def _follow(self, since: int) -> None:
        """Wake the pass loop whenever the indexer's generation moves past `since`, the one
        `_run` read before this task existed (read here, a batch applied before this task's
        first step would go unseen: the pass covering the older generation, no wake for it)."""
        ix = indexer_of(self.vault)
        if ix is None:
            return
        seen = [since]
        while True:
            with contextlib.suppress(TimeoutError):
                await ix.wait_for(lambda: ix.generation != seen[0], within=3600)
            seen[0] = ix.generation
            self._wake.set()

    async def _run(self) -> None:
        ix = indexer_of(self.vault)
        if ix is None:
            return
        await ix.wait_for(lambda: ix.state in ("ready", "failed"), within=1e9)
        self._tasks.append(asyncio.create_task(self._follow(ix.generation), name=self.name + ":follow"))
        first = True
        while True:
            gen = ix.generation
            epoch = self._epoch
            self._wake.clear()
            try:
                started = time.perf_counter()
                await self.run_pass(gc=first)
                self.state, self.error = "idle", None
                if not self._announced:  # once after start and after each kick, not per edit
                    self._announced = True
                    counts = await self.engine.counts(self.vault.id)
                    log.info(
                        "embeddings of vault %s complete: %d of %d chunks (%s) in %.1f s",
                        self.vault.id,
                        counts.embedded,
                        counts.chunks,
                        self.engine.embedder().name,
                        time.perf_counter() - started,
                    )
            except EmbeddingUnavailable as exc:
                self.state, self.error = "failed", exc.message
            except Exception as exc:
                log.exception("embedding pass of %s failed", self.vault.id)
                self.state, self.error = "failed", f"{type(exc).__name__}: {exc}"
            first = False
            reindexed = self._reindex_epoch is not None and epoch >= self._reindex_epoch
            if reindexed and epoch == self._epoch:  # a pass begun after the reindex's kick (and any later) ended
                self.reindex_since = self._reindex_epoch = None
            self._tried_gen = gen
            await self._notify()
            timeout = RETRY_SECONDS if self.state == "failed" else None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)
            if self.engine.settings.debounce_ms:
                await asyncio.sleep(self.engine.settings.debounce_ms / 1000)

    def _lower_floor(self, lowest: int | None) -> None:
        if lowest is not None and self._floor is not None and lowest <= self._floor[1]:
            self._floor = (self._floor[0], lowest - 1)

    def _raise_floor(self, model: str, to: int) -> None:
        """During a pass, once a window of the backlog is stored: the counts `index_status`
        takes join only the chunks past it with their vectors (the join of every chunk took
        1.5-3.4 s at 583,000 chunks, at every poll of a first pass)."""
        if self.floor(model) < to:
            self._floor = (model, to)

    def floor(self, model: str) -> int:
        """Every chunk up to this id has a vector for `model` (0: not known)."""
        return self._floor[1] if self._floor is not None and self._floor[0] == model else 0

    async def _give_way(self) -> None:
        """Wait for a pause in the calls (`GIVE_WAY_QUIET_S` without one), at most
        `GIVE_WAY_MAX_S`: chunking holds the interpreter and the model takes the cores, so under
        calls that come back to back a batch starts at most every `GIVE_WAY_MAX_S`, and between
        an agent's calls (its own thinking) the job runs freely."""
        if self.activity is not None:
            await self.activity.quiet(GIVE_WAY_QUIET_S, within=GIVE_WAY_MAX_S)

    def _outbound(self, embedder: Embedder) -> Callable[[str], str] | None:
        """How a chunk's text is cut before it leaves the process: a provider reached over HTTP
        (`remote`: OpenAI, Voyage, Cohere, Ollama) is sent it with each secret span replaced by
        `[REDACTED:<kind>]` when the vault's `[sensitive]` mode redacts (`redact`, `exclude`:
        the text a search may show, the rule the reranker follows). The vector is stored for the
        chunk's own text; the builtin model runs in this process and reads the text as it is."""
        guard = self.engine.guard(self.vault) if self.engine.guard is not None else None
        if guard is None or not guard.redacts or not getattr(embedder, "remote", False):
            return None
        return guard.redact

    def _chunk(self, notes: list[store.Source]) -> list[tuple[store.Source, list[Chunk]]]:
        chunker = self.engine.chunker()
        return [(src, chunker.chunks_of(src)) for src in notes]

    async def run_pass(self, *, gc: bool = False) -> None:
        engine, db, vid = self.engine, self.engine.db, self.vault.id
        self.state = "embedding"
        epoch = self._epoch
        await self._notify()
        if not self._canvases_dropped:  # no canvas is chunked any more: once per process is enough
            if await db.run_write(partial(store.drop_canvas_chunks, vault_id=vid)):
                engine.cache.bump(vid)
            self._canvases_dropped = True
        walked = 0  # 1. chunks, from the last note id read: a note edited behind it wakes the next pass
        while True:
            await self._give_way()
            stale = await db.run_scan(partial(store.stale_notes, vault_id=vid, limit=CHUNK_NOTES, after=walked))
            if not stale:
                break
            walked = stale[-1].note_id
            made: list[tuple[store.Source, list[Chunk]]] = []
            for at in range(0, len(stale), CHUNK_STEP):  # a few notes per hop: the interpreter is free between
                if at:
                    await self._give_way()
                made += await asyncio.to_thread(self._chunk, stale[at : at + CHUNK_STEP])
            self._lower_floor(await db.run_write(partial(store.write_chunks, vault_id=vid, notes=made)))
            engine.cache.bump(vid)
        if gc:
            await db.run_write(store.unused_vectors)
        embedder = engine.embedder()
        model = embedder.name
        batch = engine.settings.batch_size
        outbound = self._outbound(embedder)
        started, done = time.perf_counter(), 0
        floor = after = self.floor(model)
        if not after:  # a restart: the mark, when it holds, says every chunk has its vector
            marked = await db.run_read(partial(store.marked_through, vault_id=vid, model=model))
            after = marked or 0
        while True:  # 2. vectors: a list of pending texts at a time, embedded and stored per batch
            limit = max(PENDING, batch)
            read = partial(store.pending_from, vault_id=vid, model=model, limit=limit, after=after)
            seq, found = await db.run_read(read)
            if not found:
                if epoch == self._epoch:  # searches after a restart need not walk every chunk
                    await db.run_write(partial(store.save_mark, vault_id=vid, model=model, seq=seq))
                break
            after = found[-1][0]
            # Similar lengths in one batch: a remote provider pads a batch to its longest text.
            pending = sorted(((h, t) for _, h, t in found), key=lambda item: len(item[1]))
            todos = [pending[at : at + batch] for at in range(0, len(pending), batch)]
            # The next batch embeds while this one is stored: the model's threads never wait for
            # the write, the progress report or the edge of a batch.
            inflight: deque[tuple[list[tuple[str, str]], asyncio.Task[Matrix]]] = deque()
            try:
                for at in range(len(todos)):
                    while len(inflight) < IN_FLIGHT and at + len(inflight) < len(todos):
                        if inflight:  # the one running embeds on; the next starts at a pause
                            await self._give_way()
                        todo = todos[at + len(inflight)]
                        texts = [t if outbound is None else outbound(t) for _, t in todo]
                        inflight.append((todo, asyncio.ensure_future(embedder.embed_documents(texts))))
                    todo, task = inflight.popleft()
                    rows = await task
                    hashes = [h for h, _ in todo]
                    await db.run_write(partial(store.store_vectors, model=model, hashes=hashes, vectors=rows))
                    engine.dims[model] = int(rows.shape[1])
                    done += len(todo)
                    self.embedded_total += len(todo)
                    self.rate = done / max(1e-6, time.perf_counter() - started)
                    engine.cache.bump(vid)
                    if self.progress is not None:
                        counts = await engine.counts(vid)
                        await self.progress(counts.embedded, counts.chunks)
            finally:
                for _, task in inflight:
                    task.cancel()
            if epoch == self._epoch:  # every chunk up to `after` has its vector now
                self._raise_floor(model, after)
        if db.backends.vec:  # 3. sqlite-vec
            dim = engine.dims.get(model) or await engine.stored_dim(model)
            if dim:
                while await db.run_write(lambda c: vectors.sync(c, vid, model, dim, after=floor)):
                    pass
        await db.run_write(vectors.prune_changes)
        settings = engine.settings.model_dump_json()
        previous = await db.run_write(lambda c: store.mark_complete(c, vid, model, settings))
        if epoch == self._epoch:  # nothing is left below the highest id (no reindex began meanwhile)
            self._floor = (model, await db.run_read(partial(store.top_chunk_id, vault_id=vid)))
        if previous is not None and previous != model:
            await asyncio.to_thread(engine.cache.forget, vid, previous)
        if previous is not None and previous != model and db.backends.vec:
            await db.run_write(lambda c: vectors.drop_table(c, previous))
        if gc and engine.settings.preload_vectors is not False:  # None: a server built in process
            await engine.warm_scan(vid)
        self.last_pass = time.time()


def _awaiting(task: asyncio.Task[None]) -> str:
    """Where a task stands: its chain of awaits, innermost last ("done" once it ended)."""
    if task.done():
        return "done" if task.cancelled() or task.exception() is None else f"done: {task.exception()!r}"
    where: list[str] = []
    coro: Any = task.get_coro()
    while getattr(coro, "cr_frame", None) is not None:
        where.append(f"{coro.cr_frame.f_code.co_name}:{coro.cr_frame.f_lineno}")
        coro = getattr(coro, "cr_await", None)
    return " > ".join(where) or repr(coro)
