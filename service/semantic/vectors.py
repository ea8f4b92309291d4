"""Nearest chunks to a query vector: sqlite-vec `vec0` when the extension loads, else an exact
numpy scan over the stored vectors. Both return the same neighbours (cosine similarity).

The `vec0` table of a model is created at run time (its size depends on the model):
`vec_<digest of the model name>(chunk_id INTEGER PRIMARY KEY, vault_id TEXT PARTITION KEY,
embedding float[dim] distance_metric=cosine)`. `sync` copies vectors of chunks not in it yet
(`chunks.vec_model`), and deletes rows of dropped chunks (`chunks_dropped`, filled by a trigger).

The numpy scan reads a vault's chunk vectors once per `version` (bumped by the embedding job
after each write) and keeps the matrix; a query is one matrix-vector product. It also serves
the vectors of a previous model while a new one is being filled in, and k above sqlite-vec's
limit (4096).
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

VEC_MAX_K = 4096


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


def sync(conn: sqlite3.Connection, vault_id: str, model: str, dim: int, limit: int = 2000) -> int:
    """Bring the model's vec0 table in line with the chunks (writer thread). Returns rows added."""
    name = ensure_table(conn, model, dim)
    dropped = [int(r[0]) for r in conn.execute("SELECT chunk_id FROM chunks_dropped LIMIT 5000")]
    if dropped:
        conn.executemany(f"DELETE FROM {name} WHERE chunk_id = ?", [(i,) for i in dropped])
        conn.executemany("DELETE FROM chunks_dropped WHERE chunk_id = ?", [(i,) for i in dropped])
    rows = conn.execute(
        "SELECT c.id, e.vector FROM chunks c JOIN embeddings e ON e.model = ? AND e.hash = c.hash "
        "WHERE c.vault_id = ? AND (c.vec_model IS NULL OR c.vec_model != ?) LIMIT ?",
        (model, vault_id, model, limit),
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


@dataclass
class ScanCache:
    """Per (vault, model) matrices for the exact scan, reloaded when `version` moves on."""

    versions: dict[str, int] = field(default_factory=dict)
    _mats: dict[tuple[str, str], _Matrix] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def bump(self, vault_id: str) -> None:
        self.versions[vault_id] = self.versions.get(vault_id, 0) + 1

    def matrix(self, conn: sqlite3.Connection, vault_id: str, model: str) -> _Matrix:
        version = self.versions.get(vault_id, 0)
        with self._lock:
            found = self._mats.get((vault_id, model))
            if found is not None and found.version == version:
                return found
        rows = conn.execute(
            "SELECT c.id, e.vector FROM chunks c JOIN embeddings e ON e.model = ? AND e.hash = c.hash "
            "WHERE c.vault_id = ? ORDER BY c.id",
            (model, vault_id),
        ).fetchall()
        ids = np.fromiter((int(r[0]) for r in rows), dtype=np.int64, count=len(rows))
        vectors = (
            np.vstack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
            if rows
            else np.zeros((0, 1), dtype=np.float32)
        )
        mat = _Matrix(version, ids, vectors)
        with self._lock:
            self._mats[(vault_id, model)] = mat
        return mat


def knn_scan(
    conn: sqlite3.Connection, cache: ScanCache, vault_id: str, model: str, query: np.ndarray[Any, Any], k: int
) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity), best first, by an exact scan of every vector."""
    mat = cache.matrix(conn, vault_id, model)
    if not len(mat.ids):
        return []
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    if mat.vectors.shape[1] != q.shape[0]:
        return []
    sims = mat.vectors @ q
    k = min(k, len(sims))
    top = np.argpartition(-sims, k - 1)[:k]
    order = top[np.lexsort((mat.ids[top], -sims[top]))]
    return [(int(mat.ids[i]), float(sims[i])) for i in order]
