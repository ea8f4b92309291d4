"""sqlite-vec's side of vector search: each model's `vec0` table, created at run time (its size
depends on the model): `vec_<digest of the model name>(chunk_id INTEGER PRIMARY KEY, vault_id
TEXT PARTITION KEY, embedding float[dim] distance_metric=cosine)`. `sync` copies vectors of chunks
not in it yet (`chunks.vec_model`) and deletes rows of dropped chunks (`chunks_dropped`, filled by
a trigger); `knn_vec` answers the nearest chunks where the scan (`vectors.py`) does not.
"""

from __future__ import annotations

import hashlib
import sqlite3
from typing import TYPE_CHECKING, Any

from service.storage.scan_cache import scan_cache

if TYPE_CHECKING:
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


def sync(conn: sqlite3.Connection, vault_id: str, model: str, dim: int, limit: int = 2000, after: int = 0) -> int:
    """Bring the model's vec0 table in line with the chunks past id `after` (writer thread: the
    embedding job knows every chunk up to its floor is in). Returns rows added."""
    name = ensure_table(conn, model, dim)
    dropped = [int(r[0]) for r in conn.execute("SELECT chunk_id FROM chunks_dropped LIMIT 5000")]
    if dropped:
        conn.executemany(f"DELETE FROM {name} WHERE chunk_id = ?", [(i,) for i in dropped])
        conn.executemany("DELETE FROM chunks_dropped WHERE chunk_id = ?", [(i,) for i in dropped])
    with scan_cache(conn):  # every chunk past `after` (all of them at a start): the writer's cache kept small
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
