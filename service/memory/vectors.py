"""The vectors of memory observations kept in `memory_vectors` (by model and text hash), so a
restart of the recall index (`service.memory.recall`) embeds nothing again."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
else:
    from service.numpy_lazy import np  # imported at its first use


def stored(conn: sqlite3.Connection, model: str, hashes: list[str]) -> dict[str, np.ndarray[Any, Any]]:
    out: dict[str, np.ndarray[Any, Any]] = {}
    for i in range(0, len(hashes), 500):
        part = hashes[i : i + 500]
        marks = ",".join("?" * len(part))
        rows = conn.execute(
            f"SELECT hash, vector FROM memory_vectors WHERE model = ? AND hash IN ({marks})", (model, *part)
        ).fetchall()
        for h, blob in rows:
            out[str(h)] = np.frombuffer(blob, dtype=np.float32)
    return out


def store(conn: sqlite3.Connection, *, model: str, hashes: list[str], vectors: np.ndarray[Any, Any]) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO memory_vectors(model, hash, vector) VALUES (?,?,?)",
        [(model, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in zip(hashes, vectors, strict=True)],
    )
