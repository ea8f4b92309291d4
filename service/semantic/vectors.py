"""Nearest chunks to a query vector: an exact numpy scan of the vault's vectors, or sqlite-vec
`vec0` (`vec0.py`: its tables and their sync). Both return the same neighbours (cosine similarity).

The scan keeps a snapshot of the vault's vectors (`snapshot.Matrix`) in step with the
`chunk_changes` log that triggers fill (migration 0013): a search after an edit re-reads the
changed chunks only. Below `FIRST_PASS_ROWS` chunks the vectors are one matrix in memory and a
query is one matrix-vector product; from there a first pass over compact codes picks candidates
that are rescored exactly, with the vectors in a file beside the index and int8 codes in memory
(`vecfile.py`) where the index has a folder and `[embeddings] vectors_on_disk` is on, else the
matrix and its float codes (`codes`) in memory. The scan answers while what it holds fits in
`SCAN_MAX_BYTES`, when sqlite-vec cannot load, for the vectors of a previous model while a new one
is being filled in, and for k above sqlite-vec's limit (4096). `vec0` answers for larger vaults.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from service.semantic import snapshot
from service.semantic.firstpass import candidates as _candidates
from service.semantic.firstpass import ensure_codes as ensure_codes
from service.semantic.firstpass import pass_size as pass_size
from service.semantic.rankings import Query, Ranking, Rankings, remembered
from service.semantic.snapshot import CHANGES_KEPT, Damaged, Matrix, changes, chunk_count, retire, vector_dim
from service.semantic.vec0 import (  # sqlite-vec's side: the engine and the job name it through this module
    VEC_MAX_K as VEC_MAX_K,
)
from service.semantic.vec0 import drop_table as drop_table
from service.semantic.vec0 import ensure_table as ensure_table
from service.semantic.vec0 import has_table as has_table
from service.semantic.vec0 import knn_vec as knn_vec
from service.semantic.vec0 import sync as sync
from service.semantic.vec0 import table_name as table_name

_Matrix = Matrix  # the name tests and benchmarks use
REREAD_OVER = snapshot.REREAD_OVER  # read at each update (tests lower it)

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

    from service.semantic.vecfile import Place

SCAN_MAX_BYTES = 256 * 2**20  # vectors held in memory for the exact scan, per vault and model
FIRST_PASS_ROWS = 20_000  # from this many rows, the scan rescores the candidates of a first pass
# ... while they are at most 1/8 of the rows: rescoring a row costs several times reading it in
# the plain scan (59,924 rows: 2,000 candidates 7.1 ms against 14.1, 9,600 16.0 against 15.2)
CANDIDATE_SHARE = 8
DISK_ROW_BYTES = 136  # held per row with the vectors in their file: chunk id and 128 int8 axes


def last_change(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM chunk_changes").fetchone()[0])


def prune_changes(conn: sqlite3.Connection) -> None:
    """Forget all but the newest `CHANGES_KEPT` changes (writer thread). A snapshot further behind
    is read from scratch anyway (`ScanCache.matrix`)."""
    conn.execute("DELETE FROM chunk_changes WHERE seq <= ?", (last_change(conn) - CHANGES_KEPT,))


def _read(conn: sqlite3.Connection, vault_id: str, model: str, version: int, seq: int) -> _Matrix:
    """Every vector of the vault's chunks, from scratch (`seq` read before the rows): one join
    walked in the vectors' key order, each row written straight into the matrix. Looking the
    vectors up by hash, 500 at a time, took 4.6-5.4 s at 60,000 chunks; this takes 1.2-2.0 s.
    (Holding every vector as a bytes object first and stacking them doubled the matrix for a
    moment, and the C heap kept most of that second copy resident afterwards.)"""
    import numpy as np

    total = int(conn.execute("SELECT COUNT(*) FROM chunks WHERE vault_id = ?", (vault_id,)).fetchone()[0])
    ids = np.empty(total, dtype=np.int64)
    store: np.ndarray[Any, Any] | None = None
    used = 0
    for chunk_id, blob in conn.execute(
        "SELECT c.id, e.vector FROM embeddings e JOIN chunks c INDEXED BY chunks_by_vault_hash "
        "ON c.vault_id = ? AND c.hash = e.hash WHERE e.model = ?",
        (vault_id, model),
    ):
        if store is None:
            store = np.empty((total + total // 8 + 64, len(blob) // 4), dtype=np.float32)
        if used == len(ids):  # chunks added since the count
            ids = np.resize(ids, used * 2 + 64)
        if used == len(store):
            store = np.resize(store, (used * 2 + 64, store.shape[1]))
        store[used] = np.frombuffer(blob, dtype=np.float32)
        ids[used] = chunk_id
        used += 1
    if store is None:
        store = np.zeros((0, 1), dtype=np.float32)
    return _Matrix(version, seq, ids[:used].copy(), store[:used], store, np.zeros(0, dtype=np.int64))


def _updated(conn: sqlite3.Connection, old: _Matrix, vault_id: str, model: str, seq: int) -> _Matrix | None:
    """`old` brought up to `seq`: the rows of every chunk changed since are retired and the chunk's
    current vector (if it has one) appended. None when reading from scratch is the better way."""
    import numpy as np

    got = changes(conn, old, vault_id, model, seq, REREAD_OVER)
    if got is None:
        return None
    changed, found = got
    if not changed:
        return _Matrix(old.version, seq, old.ids, old.vectors, old.store, old.dead, old.codes, old.code_store)
    dim = old.store.shape[1]
    if any(len(v) != 4 * dim for v in found.values()):
        return None
    ids, dead = retire(old.ids, old.dead, changed)
    new_ids = np.array(sorted(found), dtype=np.int64)
    used, add = len(ids), len(new_ids)
    store, vectors = old.store, old.vectors
    coded = old.codes if old.codes is not None and len(old.codes.rows) == used else None
    code_store = old.code_store
    if used + add > len(store) or len(dead) > max(1024, (used + add) // 4):  # compact into new rows
        keep = np.flatnonzero(ids >= 0)
        store = np.empty((int((len(keep) + add) * 1.125) + 64, dim), dtype=np.float32)
        store[: len(keep)] = vectors[keep]
        if coded is not None:
            code_store = np.empty((len(store), coded.rows.shape[1]), dtype=np.float32)
            code_store[: len(keep)] = coded.rows[keep]
        ids, dead, used = ids[keep], np.zeros(0, dtype=np.int64), len(keep)
    for n, chunk_id in enumerate(new_ids.tolist(), used):
        store[n] = np.frombuffer(found[chunk_id], dtype=np.float32)
    mat = _Matrix(old.version, seq, np.concatenate([ids, new_ids]), store[: used + add], store, dead)
    if coded is not None and code_store is not None:  # the new rows coded with the basis the others have
        from service.semantic import codes

        code_store[used : used + add] = codes.codes_of(store[used : used + add], coded.basis)
        mat.codes, mat.code_store = codes.Codes(coded.basis, code_store[: used + add]), code_store
    return mat


@dataclass
class ScanCache:
    """Per (vault, model) matrices for the exact scan, kept in step with `chunk_changes`.

    A search first reads the newest change's `seq` (one index lookup); a matrix behind it re-reads
    only the chunks changed since (their rows retired, their current vectors appended), so a
    search while a backlog embeds, or right after an edit, costs the changed rows, not every
    row. Far behind (`REREAD_OVER` chunks, or changes already pruned) or after `reload`, the
    matrix is read from scratch. One thread updates a matrix at a time; searches holding an
    older snapshot keep reading it undisturbed.
    """

    versions: dict[str, int] = field(default_factory=dict)
    doc_freq: dict[str, int] = field(default_factory=dict)  # word -> notes holding it (search.specificity)
    # The file layout (vecfile.py): its folder, and from how many rows a read from scratch uses
    # it (None: the matrix is always held in memory).
    directory: Path | None = None
    disk_rows: int | None = None
    _mats: dict[tuple[str, str], _Matrix] = field(default_factory=dict)
    _rankings: Rankings = field(default_factory=Rankings)  # the installed snapshots' rankings
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _refresh: dict[tuple[str, str], threading.Lock] = field(default_factory=dict)
    _places: dict[tuple[str, str], Place | None] = field(default_factory=dict)  # None: another process holds it
    _rebuild: set[tuple[str, str]] = field(default_factory=set)  # vector files found damaged in use

    def bump(self, vault_id: str) -> None:
        """The vault's notes changed: count words again (the matrix follows `chunk_changes`).

        A new dict, not a cleared one: a search's reader thread that took the old one (and
        counts from before the change) may still write into it, and must not refill the new."""
        self.doc_freq = {}

    def reload(self, vault_id: str) -> None:
        """Read the vault's matrices from scratch at the next search."""
        self.versions[vault_id] = self.versions.get(vault_id, 0) + 1
        self.bump(vault_id)

    def held(self, vault_id: str, model: str) -> _Matrix | None:
        """The matrix in memory for (vault, model), as last brought up to date (None: not read)."""
        with self._lock:
            return self._mats.get((vault_id, model))

    def rows(self, conn: sqlite3.Connection, vault_id: str, model: str) -> int:
        """How many vectors the vault's matrix holds (or would hold: a count when not loaded)."""
        with self._lock:
            found = self._mats.get((vault_id, model))
        if found is not None:
            return found.live
        row = conn.execute("SELECT COUNT(*) FROM chunks WHERE vault_id = ?", (vault_id,)).fetchone()
        return int(row[0])

    def held_bytes(self, conn: sqlite3.Connection, vault_id: str, model: str, dim: int) -> int:
        """The memory the vault's vectors take (or would take) for the scan: 4 bytes a dimension
        a row in memory, `DISK_ROW_BYTES` a row with the vectors in their file."""
        rows = self.rows(conn, vault_id, model)
        with self._lock:
            found = self._mats.get((vault_id, model))
        on_disk = found.disk is not None if found is not None else self._uses_file(rows)
        return rows * DISK_ROW_BYTES if on_disk else rows * 4 * dim

    def _uses_file(self, rows: int) -> bool:
        return self.directory is not None and self.disk_rows is not None and rows >= self.disk_rows

    def _place(self, vault_id: str, model: str) -> Place | None:
        """The vault's vector files, held by this process (None: no folder, or another holds them).
        Called under the key's refresh lock."""
        key = (vault_id, model)
        if key not in self._places:
            self._places[key] = None
            if self.directory is not None and self.disk_rows is not None:
                try:
                    from service.semantic.vecfile import Place
                except ImportError:  # no fcntl (Windows): every vector stays in memory
                    return None
                place = Place(self.directory, vault_id, model)
                self._places[key] = place if place.acquire() else None
        return self._places[key]

    def damaged(self, vault_id: str, model: str, mat: _Matrix) -> None:
        """`mat`'s vector file lost rows while in use: the next search builds it from the index."""
        key = (vault_id, model)
        with self._lock:
            if self._mats.get(key) is mat:
                del self._mats[key]
                self._rankings.drop(key)
                self._rebuild.add(key)

    def forget(self, vault_id: str, model: str) -> None:
        """Drop the snapshot and the vector files of a model the vault no longer searches."""
        key = (vault_id, model)
        with self._lock:
            self._mats.pop(key, None)
            self._rankings.drop(key)
            refresh = self._refresh.setdefault(key, threading.Lock())
        with refresh:
            place = self._place(vault_id, model)
            if place is not None:
                place.discard()
                place.release()
            self._places.pop(key, None)

    def close(self) -> None:
        """Let go of the vector files (the snapshots in use keep their mapped rows)."""
        with self._lock:
            places, self._places = self._places, {}
        for place in places.values():
            if place is not None:
                place.release()

    def matrix(self, conn: sqlite3.Connection, vault_id: str, model: str) -> _Matrix:
        key, version = (vault_id, model), self.versions.get(vault_id, 0)
        seq = last_change(conn)
        with self._lock:
            found = self._mats.get(key)
            refresh = self._refresh.setdefault(key, threading.Lock())
        if found is not None and found.version == version and found.seq >= seq:
            return found
        with refresh:
            with self._lock:
                found = self._mats.get(key)
            if found is not None and found.version == version and found.seq >= seq:
                return found
            mat = self._refreshed(conn, vault_id, model, found, version, seq)
            with self._lock:
                self._mats[key] = mat
                self._rankings.drop(key)
        return mat

    def _refreshed(
        self, conn: sqlite3.Connection, vault_id: str, model: str, found: _Matrix | None, version: int, seq: int
    ) -> _Matrix:
        """`found` brought up to `seq`, or the matrix read afresh: from the vector file's checkpoint
        when the process has none yet, else from the index (into the file from `disk_rows` rows)."""
        place = self._place(vault_id, model)
        if (vault_id, model) in self._rebuild:
            self._rebuild.discard((vault_id, model))
            if place is not None:
                place.discard()
        elif found is None and version == 0 and place is not None:
            from service.semantic import vecfile

            found = vecfile.restore(place, version)
        mat = None
        if found is not None and found.version == version and seq - found.seq <= CHANGES_KEPT:
            if found.disk is not None and place is not None:
                from service.semantic import vecfile

                mat = vecfile.update(conn, place, found, vault_id, model, seq)
            elif found.disk is None:
                mat = _updated(conn, found, vault_id, model, seq)
        if mat is not None and mat.disk is None and place is not None and self._uses_file(len(mat.ids)):
            mat = None if vector_dim(conn, model) >= 256 else mat  # grown past `disk_rows`: into the file
        if mat is not None:
            return mat
        if place is not None and self._uses_file(chunk_count(conn, vault_id)) and vector_dim(conn, model) >= 256:
            from service.semantic import vecfile

            return vecfile.build(conn, place, vault_id, model, version, seq)
        return _read(conn, vault_id, model, version, seq)

    def ranking(self, vault_id: str, model: str, mat: _Matrix, query: Query, make: Callable[[], Ranking]) -> Ranking:
        """The ranking of `query` over snapshot `mat`: the one kept (`rankings`), else `make()`,
        kept while `mat` is the installed snapshot."""
        key = (vault_id, model)
        with self._lock:
            found = self._rankings.get(key, mat, query)
        if found is not None:
            return found
        made = make()
        with self._lock:
            if self._mats.get(key) is mat:
                self._rankings.keep(key, mat, query, made)
        return made


def scan_ranking(
    conn: sqlite3.Connection,
    cache: ScanCache,
    vault_id: str,
    model: str,
    query: np.ndarray[Any, Any],
    *,
    first_pass_rows: int = FIRST_PASS_ROWS,
    candidate_share: int | None = None,
    retry: bool = True,
) -> Ranking:
    """The exact scan as a function of k: each call returns the k best (chunk id, cosine
    similarity), best first (ties by chunk id). A caller that must look deeper (filters refused
    too many) asks again without a second pass over the vectors.

    The ranking is remembered with the matrix snapshot it ranks (`rankings`: the last few queries,
    and each k's answer): an agent asks one question of several tools (search_hybrid, then
    context_for_query), and a ranking depends on nothing but the rows and the query vector. Any
    change to the vault's chunks or vectors makes a new snapshot, which starts with none.

    Below `first_pass_rows` rows every similarity is computed (once). From there on a first pass
    over the rows' compact codes (`codes`, a third of a 384-d matrix) picks `pass_size(k)`
    candidates and only those are rescored exactly: the answer is the exact top k whenever the
    candidates hold it (99.9% of the top 64 and 99.6% of the top 400 on 59,924 chunks,
    docs/benchmarks.md). A k whose candidates would be more than 1/`CANDIDATE_SHARE` of the
    rows falls back to every similarity, computed once."""
    import numpy as np

    mat = cache.matrix(conn, vault_id, model)
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    share = candidate_share or CANDIDATE_SHARE
    key = (first_pass_rows, share, q.tobytes())
    ranking = cache.ranking(vault_id, model, mat, key, lambda: remembered(_ranking(mat, q, first_pass_rows, share)))
    if mat.disk is None or not retry:
        return ranking

    def guarded(k: int) -> list[tuple[int, float]]:
        try:
            return ranking(k)
        except Damaged:  # the file lost rows while in use: answered from a file built again
            cache.damaged(vault_id, model, mat)
            again = scan_ranking(
                conn, cache, vault_id, model, q, first_pass_rows=first_pass_rows, candidate_share=share, retry=False
            )
            return again(k)

    return guarded


def _ranking(mat: _Matrix, q: np.ndarray[Any, Any], first_pass_rows: int, share: int) -> Ranking:
    import numpy as np

    from service.semantic import codes

    rows = len(mat.ids)
    if not mat.live or mat.vectors.shape[1] != q.shape[0]:
        return lambda k: []
    exact: list[np.ndarray[Any, Any]] = []  # every similarity, once computed
    estimated: dict[str, tuple[np.ndarray[Any, Any], ...]] = {}  # first-pass estimates a later k reuses

    def similarities(at: np.ndarray[Any, Any] | None = None) -> np.ndarray[Any, Any]:
        if mat.disk is not None:
            return mat.disk.similarities(q, at)
        # einsum, not `@`: a matrix-vector product through multi-threaded BLAS waits on its
        # threads, which on a busy machine made a 4,000-row scan 10x slower (docs/benchmarks.md).
        sims: np.ndarray[Any, Any] = np.einsum("ij,j->i", mat.vectors if at is None else mat.vectors[at], q)
        return sims

    def best(k: int, at: np.ndarray[Any, Any], sims: np.ndarray[Any, Any]) -> list[tuple[int, float]]:
        """The k best of rows `at` (similarities `sims`), best first, ties by chunk id (also
        those at the k-th place: every row tied with it is sorted in before the cut)."""
        top = np.arange(len(sims))
        if k < len(sims):
            top = np.flatnonzero(sims >= sims[np.argpartition(-sims, k - 1)[:k]].min())
        ids = mat.ids[at[top]]
        order = np.lexsort((ids, -sims[top]))[:k]
        return [(int(ids[i]), float(sims[top[i]])) for i in order]

    def top(k: int) -> list[tuple[int, float]]:
        k = min(k, mat.live)
        if k <= 0:
            return []
        wanted = pass_size(k)
        first_pass = rows >= first_pass_rows and wanted * share <= rows and q.shape[0] >= 2 * codes.CODE_DIM
        # Each k's answer depends on k alone, not on what was asked before (rankings are shared
        # between calls): a k the first pass answers is answered by it even once every similarity
        # is known (one call asks k, 4k, ... and never a first-pass k after a larger one).
        if first_pass:
            at = _candidates(mat, q, wanted, estimated)
            at = at[mat.ids[at] >= 0]  # a retired row is a candidate only when too few live ones are left
            return best(k, at, similarities(at))
        if not exact:
            sims = similarities()
            sims[mat.dead] = -np.inf
            exact.append(sims)
        return best(k, np.arange(rows), exact[0])

    return top


def knn_scan(
    conn: sqlite3.Connection, cache: ScanCache, vault_id: str, model: str, query: np.ndarray[Any, Any], k: int
) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity), best first, by an exact scan of every vector."""
    return scan_ranking(conn, cache, vault_id, model, query)(k)
