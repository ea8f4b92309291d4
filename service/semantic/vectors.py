"""Nearest chunks to a query vector: an exact numpy scan of the vectors held in memory, or
sqlite-vec `vec0`. Both return the same neighbours (cosine similarity).

Every vector is stored in the `embeddings` table and, when the extension loads, in the model's
`vec0` table, created at run time (its size depends on the model):
`vec_<digest of the model name>(chunk_id INTEGER PRIMARY KEY, vault_id TEXT PARTITION KEY,
embedding float[dim] distance_metric=cosine)`. `sync` copies vectors of chunks not in it yet
(`chunks.vec_model`), and deletes rows of dropped chunks (`chunks_dropped`, filled by a trigger).

The numpy scan keeps a vault's chunk vectors as one matrix, brought up to date once per
`version` (bumped by the embedding job after each write); a query is one matrix-vector product,
or from `FIRST_PASS_ROWS` chunks a product with the rows' compact codes (`codes`) and the exact
rescoring of its best candidates.
It answers while the matrix fits in `SCAN_MAX_BYTES` (vec0 scans every row through SQLite and is
several times slower at tens of thousands of chunks), when sqlite-vec cannot load, for the
vectors of a previous model while a new one is being filled in, and for k above sqlite-vec's
limit (4096). `vec0` answers for larger vaults.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from service.semantic.codes import Codes

VEC_MAX_K = 4096
SCAN_MAX_BYTES = 256 * 2**20  # vectors held in memory for the exact scan, per vault and model
FIRST_PASS_ROWS = 20_000  # from this many rows, the scan rescores the candidates of a first pass
# ... while they are at most 1/8 of the rows: rescoring a row costs several times reading it in
# the plain scan (59,924 rows: 2,000 candidates 7.1 ms against 14.1, 9,600 16.0 against 15.2)
CANDIDATE_SHARE = 8


def table_name(model: str) -> str:
    return "vec_" + hashlib.blake2b(model.encode(), digest_size=6).hexdigest()


def ensure_table(conn: sqlite3.Connection, model: str, dim: int) -> str:
    name = table_name(model)
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING vec0(chunk_id INTEGER PRIMARY KEY, "
        f"vault_id TEXT PARTITION KEY, embedding float[{dim}] distance_metric=cosine)"
    )
    return name


def drop_table(conn: sqlite3.Connection, model: str) -> None:
    """Drop a model's vec0 table once no vault searches its vectors any more."""
    if conn.execute("SELECT 1 FROM embedding_state WHERE model = ? LIMIT 1", (model,)).fetchone() is None:
        conn.execute(f"DROP TABLE IF EXISTS {table_name(model)}")


def has_table(conn: sqlite3.Connection, model: str) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table_name(model),)).fetchone()
    return row is not None


def sync(conn: sqlite3.Connection, vault_id: str, model: str, dim: int, limit: int = 2000, after: int = 0) -> int:
    """Bring the model's vec0 table in line with the chunks past id `after` (writer thread: the
    embedding job knows every chunk up to its floor is in). Returns rows added."""
    name = ensure_table(conn, model, dim)
    dropped = [int(r[0]) for r in conn.execute("SELECT chunk_id FROM chunks_dropped LIMIT 5000")]
    if dropped:
        conn.executemany(f"DELETE FROM {name} WHERE chunk_id = ?", [(i,) for i in dropped])
        conn.executemany("DELETE FROM chunks_dropped WHERE chunk_id = ?", [(i,) for i in dropped])
    rows = conn.execute(
        "SELECT c.id, e.vector FROM chunks c JOIN embeddings e ON e.model = ? AND e.hash = c.hash "
        "WHERE c.vault_id = ? AND c.id > ? AND (c.vec_model IS NULL OR c.vec_model != ?) LIMIT ?",
        (model, vault_id, after, model, limit),
    ).fetchall()
    for chunk_id, vector in rows:
        conn.execute(f"DELETE FROM {name} WHERE chunk_id = ?", (chunk_id,))
        conn.execute(f"INSERT INTO {name}(chunk_id, vault_id, embedding) VALUES (?,?,?)", (chunk_id, vault_id, vector))
    conn.executemany("UPDATE chunks SET vec_model = ? WHERE id = ?", [(model, int(r[0])) for r in rows])
    return len(rows)


def knn_vec(
    conn: sqlite3.Connection, vault_id: str, model: str, query: np.ndarray[Any, Any], k: int
) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity), best first, through sqlite-vec."""
    import numpy as np

    name = table_name(model)
    rows = conn.execute(
        f"SELECT chunk_id, distance FROM {name} WHERE embedding MATCH ? AND k = ? AND vault_id = ? ORDER BY distance",
        (np.asarray(query, dtype=np.float32).tobytes(), min(k, VEC_MAX_K), vault_id),
    ).fetchall()
    return [(int(r[0]), 1.0 - float(r[1])) for r in rows]


@dataclass
class _Matrix:
    version: int
    ids: np.ndarray[Any, Any]
    vectors: np.ndarray[Any, Any]
    hashes: list[str] = field(default_factory=list)
    codes: Codes | None = None  # the rows' compact codes (codes.codes_of), made at the first pass that needs them


def _vectors_of(conn: sqlite3.Connection, model: str, hashes: list[str]) -> np.ndarray[Any, Any]:
    """The vectors of `hashes`, one row each, written straight into the matrix 500 rows at a time:
    holding every vector as a bytes object first (and stacking them) doubled the matrix for a
    moment, and the C heap kept most of that second copy resident afterwards (~100 MB at 60,000
    chunks)."""
    import numpy as np

    out: np.ndarray[Any, Any] | None = None
    for i in range(0, len(hashes), 500):
        part = hashes[i : i + 500]
        marks = ",".join("?" * len(part))
        sql = f"SELECT hash, vector FROM embeddings WHERE model = ? AND hash IN ({marks})"
        found = {str(h): v for h, v in conn.execute(sql, (model, *part))}
        for n, h in enumerate(part, i):
            row = np.frombuffer(found[h], dtype=np.float32)
            if out is None:
                out = np.empty((len(hashes), len(row)), dtype=np.float32)
            out[n] = row
    return out if out is not None else np.zeros((0, 1), dtype=np.float32)


@dataclass
class ScanCache:
    """Per (vault, model) matrices for the exact scan, brought up to date when `version` moves on.

    An update reads the (chunk id, hash) list of the chunks that have a vector and fetches only the
    vectors of rows it has not seen (a new chunk, or a chunk id now holding other text); rows of
    chunks gone are dropped. So a search while a backlog embeds costs one id list, not every vector.
    """

    versions: dict[str, int] = field(default_factory=dict)
    doc_freq: dict[str, int] = field(default_factory=dict)  # word -> notes holding it (search.specificity)
    _mats: dict[tuple[str, str], _Matrix] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def bump(self, vault_id: str) -> None:
        self.versions[vault_id] = self.versions.get(vault_id, 0) + 1
        self.doc_freq.clear()  # the notes changed with the vectors: count words again

    def rows(self, conn: sqlite3.Connection, vault_id: str, model: str) -> int:
        """How many vectors the vault's matrix holds (or would hold: a count when not loaded)."""
        with self._lock:
            found = self._mats.get((vault_id, model))
        if found is not None:
            return len(found.ids)
        row = conn.execute("SELECT COUNT(*) FROM chunks WHERE vault_id = ?", (vault_id,)).fetchone()
        return int(row[0])

    def matrix(self, conn: sqlite3.Connection, vault_id: str, model: str) -> _Matrix:
        import numpy as np

        version = self.versions.get(vault_id, 0)
        with self._lock:
            found = self._mats.get((vault_id, model))
            if found is not None and found.version == version:
                return found
        rows = conn.execute(
            "SELECT c.id, c.hash FROM chunks c JOIN embeddings e ON e.model = ? AND e.hash = c.hash "
            "WHERE c.vault_id = ? ORDER BY c.id",
            (model, vault_id),
        ).fetchall()
        ids = np.fromiter((int(r[0]) for r in rows), dtype=np.int64, count=len(rows))
        hashes = [str(r[1]) for r in rows]
        known = {(int(i), h): n for n, (i, h) in enumerate(zip(found.ids, found.hashes, strict=True))} if found else {}
        at = [known.get((int(i), h), -1) for i, h in zip(ids, hashes, strict=True)]
        missing = [n for n, a in enumerate(at) if a < 0]
        if not rows:
            vectors = np.zeros((0, 1), dtype=np.float32)
        elif found is None or len(missing) == len(rows):
            vectors = _vectors_of(conn, model, hashes)
        else:
            vectors = np.empty((len(rows), found.vectors.shape[1]), dtype=np.float32)
            kept = np.array(at, dtype=np.int64)
            have = kept >= 0
            vectors[have] = found.vectors[kept[have]]
            if missing:
                vectors[missing] = _vectors_of(conn, model, [hashes[n] for n in missing])
        mat = _Matrix(version, ids, vectors, hashes)
        with self._lock:
            self._mats[(vault_id, model)] = mat
        return mat


def scan_ranking(
    conn: sqlite3.Connection,
    cache: ScanCache,
    vault_id: str,
    model: str,
    query: np.ndarray[Any, Any],
    *,
    first_pass_rows: int = FIRST_PASS_ROWS,
) -> Callable[[int], list[tuple[int, float]]]:
    """The exact scan as a function of k: each call returns the k best (chunk id, cosine
    similarity), best first (ties by chunk id). A caller that must look deeper (filters refused
    too many) asks again without a second pass over the vectors.

    Below `first_pass_rows` rows every similarity is computed (once). From there on a first pass
    over the rows' compact codes (`codes`, a third of a 384-d matrix) picks `pass_size(k)`
    candidates and only those are rescored exactly: the answer is the exact top k whenever the
    candidates hold it (99.9% of the top 64 and 99.6% of the top 400 on 59,924 chunks,
    docs/benchmarks.md). A k whose candidates would be more than 1/`CANDIDATE_SHARE` of the
    rows falls back to every similarity, computed once."""
    import numpy as np

    from service.semantic import codes

    mat = cache.matrix(conn, vault_id, model)
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    rows = len(mat.ids)
    if not rows or mat.vectors.shape[1] != q.shape[0]:
        return lambda k: []
    exact: list[np.ndarray[Any, Any]] = []  # every similarity, once computed
    estimated: list[np.ndarray[Any, Any]] = []  # every row's first-pass estimate, once computed

    def similarities(at: np.ndarray[Any, Any] | None = None) -> np.ndarray[Any, Any]:
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
        k = min(k, rows)
        if k <= 0:
            return []
        wanted = pass_size(k)
        first_pass = rows >= first_pass_rows and wanted * CANDIDATE_SHARE <= rows and q.shape[0] >= 2 * codes.CODE_DIM
        if first_pass and not exact:
            if not estimated:
                if mat.codes is None or len(mat.codes.rows) != rows:
                    mat.codes = codes.build(mat.vectors)  # two readers racing here make the same codes
                estimated.append(codes.estimates(mat.codes, q))
            at = codes.candidates(estimated[0], wanted)
            return best(k, at, similarities(at))
        if not exact:
            exact.append(similarities())
        return best(k, np.arange(rows), exact[0])

    return top


def pass_size(k: int) -> int:
    """Candidates the first pass keeps for a top k (the larger, the likelier the exact answer)."""
    return max(2000, 8 * k)


def knn_scan(
    conn: sqlite3.Connection, cache: ScanCache, vault_id: str, model: str, query: np.ndarray[Any, Any], k: int
) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity), best first, by an exact scan of every vector."""
    return scan_ranking(conn, cache, vault_id, model, query)(k)
