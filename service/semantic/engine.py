"""SemanticEngine: the embedder (loaded lazily, once), the chunker, each vault's embedding job,
and nearest-chunk search over the stored vectors (sqlite-vec, or the exact numpy scan).

The search tools reach it as `services.semantic`; `app.py` builds it and runs its jobs as
components beside the indexers.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from service.activity import Activity
from service.embeddings.factory import build_embedder
from service.embeddings.protocol import Embedder
from service.errors import EmbeddingUnavailable
from service.semantic import store, vectors
from service.semantic.chunker import Chunk, Chunker
from service.semantic.job import EmbeddingJob
from service.settings import EmbeddingSettings
from service.storage.db import Database
from service.vault.vault import Vault

if TYPE_CHECKING:
    import numpy as np  # imported where vectors are used: a server without embeddings never loads it

    from service.retrieval.sensitive import Guard


QUERIES_KEPT = 256  # query vectors remembered (384 floats each: 0.4 MB)


@dataclass(slots=True)
class ChunkRow:
    """A chunk with its note's fields. Treated as immutable (`dataclasses.replace` makes a changed
    copy); not `frozen`: a search builds hundreds of these a call, and a frozen dataclass's
    `__init__` (a `object.__setattr__` per field) costs 7x a plain one's (1.6 against 0.2 µs)."""

    chunk_id: int
    note_id: int
    path: str
    title: str
    mtime: float
    folder: str
    tags: list[str]
    heading: str | None
    text: str
    position: int = 0
    headings: str = "[]"  # the heading path as stored (JSON, top level first): read with the text

    def heading_path(self) -> list[str]:
        """The headings down to the chunk's section, top level first ([] when not read)."""
        try:
            found = json.loads(self.headings or "[]")
        except ValueError:
            return []
        return [str(h) for h in found] if isinstance(found, list) else []


@dataclass(frozen=True, slots=True)
class Searchable:
    """The vectors a search of a vault uses: the configured model's when every chunk has one, else
    the previous complete model's (`stale`) when there is one, else the configured model's so far."""

    embedder: Embedder
    model: str
    stale: bool
    complete: bool


class _NoteChunker:
    def __init__(self, chunker: Chunker) -> None:
        self.chunker = chunker

    def chunks_of(self, src: store.Source) -> list[Chunk]:
        return self.chunker.chunks(src.title, src.body, aliases=src.aliases, tags=src.tags, properties=src.properties)


# While a pass runs, counts are taken again once this many times their own cost has passed: a
# first pass at 583,081 chunks joins each chunk past the job's floor with its vector (up to
# 1.5-3.4 s), and a client polling `index_status` every second must not take a core from it.
COUNT_REUSE = 10


class SemanticEngine:
    def __init__(
        self,
        settings: EmbeddingSettings,
        db: Database,
        guard: Callable[[Vault], Guard] | None = None,
        activity: Activity | None = None,
        *,
        factory: Callable[[EmbeddingSettings], Embedder | None] = build_embedder,
    ) -> None:
        """`activity`: the calls running; the embedding jobs give way to them between batches.
        `guard`: a vault's sensitive-content guard; texts sent to a remote provider are redacted
        under it (`EmbeddingJob._outbound`)."""
        self.settings = settings
        self.guard = guard
        self.db = db
        self.activity = activity
        self.cache = vectors.ScanCache()
        if settings.vectors_on_disk:  # from the first pass's threshold, vectors live in a file (vecfile.py)
            self.cache.directory = db.path.parent / "vectors"
            self.cache.disk_rows = settings.scan_first_pass_rows
        self.jobs: dict[str, EmbeddingJob] = {}
        self.dims: dict[str, int] = {}
        self._factory = factory
        self._embedder: Embedder | None = None
        self._previous: dict[str, Embedder] = {}  # models of earlier settings, for stale answers
        self._chunker: _NoteChunker | None = None
        self._queries: OrderedDict[tuple[str, str], tuple[Embedder, np.ndarray[Any, Any]]] = OrderedDict()
        # vault -> (taken at, seconds it took, model, counts): reused while a pass runs (`counts`)
        self._counted: dict[str, tuple[float, float, str, store.Counts]] = {}
        self.force_scan = False  # tests: exercise the numpy path with sqlite-vec loaded
        self.scan_max_bytes = vectors.SCAN_MAX_BYTES  # tests: 0 sends every search to sqlite-vec

    name = "semantic"

    async def start(self) -> None:
        """Nothing to start: the model loads at its first use, the jobs are components of their own."""

    async def stop(self) -> None:
        """Close the providers' HTTP clients (after the jobs have stopped)."""
        self.cache.close()
        embedders = [self._embedder, *self._previous.values()]
        self._embedder, self._previous = None, {}
        for embedder in embedders:
            close = getattr(embedder, "aclose", None)
            if close is not None:
                await close()

    async def searchable(self, vault_id: str) -> Searchable:
        current = self.embedder()
        job = self.jobs.get(vault_id)
        if job is not None and job.caught_up:  # no count queries on the hot path
            return Searchable(current, current.name, stale=False, complete=True)
        after = job.floor(current.name) if job is not None else 0
        if not await self.db.run_read(lambda c: store.has_backlog(c, vault_id, current.name, after)):
            return Searchable(current, current.name, stale=False, complete=True)
        found = await self.db.run_read(lambda c: store.complete_model(c, vault_id))
        if found is not None and found[0] != current.name:
            model, raw = found
            old = self._previous.get(model)
            if old is None:
                try:
                    made = self._factory(EmbeddingSettings.model_validate_json(raw))
                except ValueError:
                    made = None
                if made is not None and made.name == model:
                    old = self._previous[model] = made
            if old is not None:
                return Searchable(old, model, stale=True, complete=True)
        return Searchable(current, current.name, stale=False, complete=False)

    @property
    def enabled(self) -> bool:
        return self.settings.provider != "none"

    def job(self, vault: Vault) -> EmbeddingJob:
        found = self.jobs.get(vault.id)
        if found is None:
            found = self.jobs[vault.id] = EmbeddingJob(self, vault, self.activity)
        return found

    def embedder(self) -> Embedder:
        if not self.enabled:
            raise EmbeddingUnavailable(
                "semantic search is off on this server ([embeddings] provider = 'none')",
                details={"provider": "none"},
                hint="Use text search, or set [embeddings] provider.",
            )
        if self._embedder is None:
            self._embedder = self._factory(self.settings)
        if self._embedder is None:  # pragma: no cover - factory returns None only for 'none'
            raise EmbeddingUnavailable("no embedding model configured")
        return self._embedder

    def embedder_if_on(self) -> Embedder | None:
        return self.embedder() if self.enabled else None

    @property
    def model(self) -> str | None:
        return self.embedder().name if self.enabled else None

    def chunker(self) -> _NoteChunker:
        if self._chunker is None:
            from service.embeddings.counting import counter
            from service.embeddings.tokens import TokenCounter

            tokens = TokenCounter(counter().count)
            self._chunker = _NoteChunker(
                Chunker(tokens, max_tokens=self.settings.max_tokens, overlap=self.settings.overlap_tokens)
            )
        return self._chunker

    @property
    def uses_vec(self) -> bool:
        return self.db.backends.vec and not self.force_scan

    def describe(self) -> dict[str, str | None]:
        """Model, where it runs, and which vector search is in use (for server_health)."""
        if not self.enabled:
            return {"model": None, "backend": None, "vector_search": "off"}
        embedder = self.embedder()
        return {
            "model": embedder.name,
            "backend": embedder.backend,
            "vector_search": "sqlite-vec" if self.uses_vec else "exact-scan",
        }

    async def reindex(self, vault_id: str) -> tuple[float, bool]:
        """Chunk and embed a vault again from scratch (reindex mode 'embeddings'), or join the
        reindex of it that runs: (when it began, whether it was running). A reindex runs until a
        pass of the job begun after it ends (done or failed); a call meanwhile neither drops the
        vectors made so far nor starts the job over."""
        job = self.jobs[vault_id]
        began, running = job.begin_reindex()  # before the first await: a second call joins
        if running:
            return began, True
        try:
            await self.reset(vault_id)
        except BaseException:
            job.reindex_since = None
            raise
        job.kick(reindex=True)
        return began, False

    async def reset(self, vault_id: str) -> None:
        """Chunk and embed a vault again from scratch (reindex mode 'embeddings')."""
        model = self.embedder().name

        def work(conn: sqlite3.Connection) -> None:
            store.drop_vectors(conn, vault_id, model)
            store.forget_vault(conn, vault_id)

        await self.db.run_write(work)
        self.cache.reload(vault_id)
        for other, job in self.jobs.items():  # vectors are kept by text: other vaults may have used some
            if other != vault_id:
                job.kick()

    async def counts(self, vault_id: str) -> store.Counts:
        """The vault's counts; a job that has caught up (or its floor) spares the join of every
        chunk with its vector, and while its pass runs the last counts are reused for
        `COUNT_REUSE` times what they cost."""
        model = self.embedder().name
        job = self.jobs.get(vault_id)
        after = job.floor(model) if job is not None else 0
        if job is not None and job.caught_up and after:  # the last pass, for this model, left nothing
            return await self.db.run_read(lambda c: store.settled_counts(c, vault_id))
        now = time.monotonic()
        last = self._counted.get(vault_id)
        if job is not None and job.state == "embedding" and last is not None and last[2] == model:
            taken, took, _model, counts = last
            if now - taken < COUNT_REUSE * took:  # polls cost at most 1/COUNT_REUSE of a core
                return counts
        counts = await self.db.run_scan(lambda c: store.counts(c, vault_id, model, after))  # every note and chunk
        self._counted[vault_id] = (now, time.monotonic() - now, model, counts)
        return counts

    async def stored_dim(self, model: str) -> int | None:
        row = await self.db.fetchone("SELECT length(vector) FROM embeddings WHERE model = ? LIMIT 1", (model,))
        return int(row[0]) // 4 if row else None

    async def query_vector(self, text: str, embedder: Embedder | None = None) -> np.ndarray[Any, Any]:
        """The query's vector by `embedder` (default: the configured model's). The last
        `QUERIES_KEPT` are remembered per embedder object: an agent often asks one question of
        several tools (search_hybrid, then context_for_query), and a vector depends on nothing
        but the model and the text. The array is read-only (shared)."""
        use = embedder or self.embedder()
        key = (use.name, text)
        found = self._queries.get(key)
        if found is not None and found[0] is use:
            self._queries.move_to_end(key)
            return found[1]
        row: np.ndarray[Any, Any] = (await use.embed_query(text))[0]
        row.flags.writeable = False
        self._queries[key] = (use, row)
        while len(self._queries) > QUERIES_KEPT:
            self._queries.popitem(last=False)
        return row

    def ranker(
        self, conn: sqlite3.Connection, vault_id: str, query: np.ndarray[Any, Any], model: str
    ) -> Callable[[int], list[tuple[int, float]]]:
        """The vault's chunks by similarity to `query` as a function of k (reader thread).

        The exact scan of the vectors held in memory answers while they fit in `scan_max_bytes`
        (at 60,000 chunks one matrix-vector product is several times faster than sqlite-vec's
        brute-force `vec0` search, docs/benchmarks.md); it computes every similarity once, however
        often k grows. Beyond that, the configured model's vec0 table answers (one search per k,
        up to its limit; deeper, the scan). Other models' vectors (stale answers) are always scanned."""
        if model == self.embedder().name and not self._scans(conn, vault_id, model, len(query)):
            scan: list[Callable[[int], list[tuple[int, float]]]] = []

            def deep(k: int) -> list[tuple[int, float]]:
                if k <= vectors.VEC_MAX_K:
                    return vectors.knn_vec(conn, vault_id, model, query, k)
                if not scan:
                    scan.append(self._scan(conn, vault_id, model, query))
                return scan[0](k)

            return deep
        return self._scan(conn, vault_id, model, query)

    def _scan(
        self, conn: sqlite3.Connection, vault_id: str, model: str, query: np.ndarray[Any, Any]
    ) -> Callable[[int], list[tuple[int, float]]]:
        rows, share = self.settings.scan_first_pass_rows, self.settings.scan_candidate_share
        return vectors.scan_ranking(
            conn, self.cache, vault_id, model, query, first_pass_rows=rows, candidate_share=share
        )

    def _scans(self, conn: sqlite3.Connection, vault_id: str, model: str, dim: int) -> bool:
        """Whether the in-memory scan answers for `model` (else the vec0 table)."""
        too_big = self.cache.held_bytes(conn, vault_id, model, dim) > self.scan_max_bytes
        return not (self.uses_vec and too_big and vectors.has_table(conn, model))

    async def warm_scan(self, vault_id: str) -> None:
        """Read the vault's scan matrix, and its first-pass codes when the first pass will answer,
        ahead of its first search (the embedding job's first pass calls this when it ends): at
        60,000 chunks the matrix takes a second or more from scratch, the codes 0.3-1.2 s."""
        model = self.embedder().name
        dim = self.dims.get(model) or await self.stored_dim(model)

        def warm(conn: sqlite3.Connection) -> None:
            from service.semantic import codes

            if dim and self._scans(conn, vault_id, model, dim):
                mat = self.cache.matrix(conn, vault_id, model)
                first_pass = len(mat.ids) >= self.settings.scan_first_pass_rows and dim >= 2 * codes.CODE_DIM
                if first_pass and mat.disk is None:  # the file layout has its codes already
                    vectors.ensure_codes(mat)

        await self.db.run_read(warm)

    def note_vector(self, conn: sqlite3.Connection, note_id: int, model: str) -> np.ndarray[Any, Any] | None:
        """The mean of a note's chunk vectors, normalised (None when it has none yet)."""
        import numpy as np

        rows = conn.execute(
            "SELECT e.vector FROM chunks c JOIN embeddings e ON e.model = ? AND e.hash = c.hash WHERE c.note_id = ?",
            (model, note_id),
        ).fetchall()
        if not rows:
            return None
        mean = np.mean([np.frombuffer(r[0], dtype=np.float32) for r in rows], axis=0)
        norm = float(np.linalg.norm(mean))
        return (mean / norm).astype(np.float32) if norm else None


def chunk_rows(conn: sqlite3.Connection, ids: list[int], *, text: bool = True) -> dict[int, ChunkRow]:
    """The rows of chunks `ids` with their notes' fields. `text=False` leaves each chunk's text
    empty (not read): a ranking reads hundreds of candidate rows and shows a dozen of them, whose
    texts (and heading paths) `with_text` fetches afterwards."""
    out: dict[int, ChunkRow] = {}
    tags: dict[str, list[str]] = {}  # a note's tags parsed once for all its chunks
    # Without the texts, the covering index `chunks_rows` (migration 0014) answers: a chunk's row
    # in the table holds its text, so each would be a page of its own.
    column, source = ("c.text, c.heading_path", "chunks c") if text else ("'', '[]'", "chunks c INDEXED BY chunks_rows")
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ",".join("?" * len(part))
        rows = conn.execute(
            f"SELECT c.id, c.note_id, n.path, n.title, n.mtime, n.folder, n.tags, c.heading, c.position, {column} "
            f"FROM {source} JOIN notes n ON n.id = c.note_id WHERE c.id IN ({marks})",
            part,
        ).fetchall()
        for cid, nid, path, title, mtime, folder, raw, heading, position, body, headings in rows:
            found = tags.get(raw)
            if found is None:
                found = tags[raw] = list(json.loads(raw or "[]"))
            # the columns' affinities give these types already (INTEGER, TEXT, REAL NOT NULL)
            out[cid] = ChunkRow(cid, nid, path, title, mtime, folder, found, heading, body, position, headings)
    return out


def with_text(conn: sqlite3.Connection, rows: Iterable[ChunkRow]) -> dict[int, ChunkRow]:
    """`rows` (read with `text=False`) by chunk id, each with its chunk text and heading path, in
    one query per 500."""
    todo = {r.chunk_id: r for r in rows}
    ids = list(todo)
    out: dict[int, ChunkRow] = {}
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ",".join("?" * len(part))
        sql = f"SELECT id, text, heading_path FROM chunks WHERE id IN ({marks})"
        for cid, body, headings in conn.execute(sql, part):
            out[int(cid)] = dataclasses.replace(todo[int(cid)], text=str(body), headings=str(headings))
    return out
