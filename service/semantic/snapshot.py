"""One snapshot of a vault's chunk vectors as the scan holds it (`Matrix`), and the change log
that brings a snapshot up to date (`changes`), and the two counts the choice of layout reads
(`chunk_count`, `vector_dim`). Shared by the in-memory layout (`vectors.py`) and
the vector file (`vecfile.py`); imports neither.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from service.semantic.codes import Codes, Small
else:
    from service.numpy_lazy import np  # imported at its first use

CHANGES_KEPT = 100_000  # newest `chunk_changes` rows the embedding job keeps
REREAD_OVER = 20_000  # more changed chunks than this since a snapshot: read the matrix from scratch
NO_ROWS = -1


class Damaged(Exception):
    """A vector file, its checkpoint, or the rows a snapshot reads from it cannot be used."""


class StoredRows(Protocol):
    """A snapshot's float32 rows kept outside the process (`vecfile.Rows`)."""

    def take(self, at: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]: ...

    def similarities(self, q: np.ndarray[Any, Any], at: np.ndarray[Any, Any] | None = None) -> np.ndarray[Any, Any]: ...


@dataclass
class Matrix:
    """One snapshot of a vault's vectors for one model. `vectors` is the used part of `store`
    (rows allocated ahead, written once and never changed: a newer snapshot appends past this
    one's rows, so a search still holding this one reads consistent rows). A row whose chunk is
    gone or holds other text now stays in place with id -1 (`dead`) until a compaction."""

    version: int  # the cache's read-from-scratch counter for the vault when this was made
    seq: int  # the last `chunk_changes` entry these rows reflect
    ids: np.ndarray[Any, Any]
    vectors: np.ndarray[Any, Any]
    store: np.ndarray[Any, Any]
    dead: np.ndarray[Any, Any]  # row numbers with id -1
    codes: Codes | None = None  # the rows' compact codes (codes.codes_of), made when a first pass needs them
    code_store: np.ndarray[Any, Any] | None = None  # rows allocated for codes, as `store` for vectors
    # The layout with the vectors in a file (vecfile.py): `disk` reads the file's rows, `vectors`
    # only has their shape, `small` holds their int8 codes (the head of `small_store`, rows
    # allocated ahead as `store`'s).
    disk: StoredRows | None = None
    small: Small | None = None
    small_store: Small | None = None

    @property
    def live(self) -> int:
        return len(self.ids) - len(self.dead)


def changes(
    conn: sqlite3.Connection, old: Matrix, vault_id: str, model: str, seq: int, limit: int = REREAD_OVER
) -> tuple[list[int], dict[int, bytes]] | None:
    """The chunks changed since `old` up to `seq`, and the current vectors of those that have one.
    None: more than `limit` (or `old` has no rows): reading from scratch is the better way."""
    changed = [
        int(r[0])
        for r in conn.execute(
            "SELECT DISTINCT chunk_id FROM chunk_changes WHERE seq > ? AND seq <= ? AND vault_id = ?",
            (old.seq, seq, vault_id),
        )
    ]
    if len(changed) > limit or not len(old.ids):
        return None
    found: dict[int, bytes] = {}
    for i in range(0, len(changed), 500):
        part = changed[i : i + 500]
        marks = ",".join("?" * len(part))
        found.update(
            (int(r[0]), r[1])
            # The chunks first (CROSS JOIN keeps that order), looked up by rowid (`+c.vault_id`):
            # without statistics (a fresh index before its first `PRAGMA optimize`) the planner
            # walked every vector of the model and probed the chunks for each
            # (tests/semantic/test_snapshot_plan.py).
            for r in conn.execute(
                "SELECT c.id, e.vector FROM chunks c CROSS JOIN embeddings e INDEXED BY embeddings_keys "
                f"ON e.model = ? AND e.hash = c.hash WHERE c.id IN ({marks}) AND +c.vault_id = ?",
                (model, *part, vault_id),
            )
        )
    return changed, found


def retire(ids: np.ndarray[Any, Any], dead: np.ndarray[Any, Any], changed: list[int]) -> tuple[Any, Any]:
    """A snapshot's row ids with the rows of `changed` chunks marked gone (`NO_ROWS`), and its dead
    rows with those added (the in-memory and the file layout update alike)."""
    ids = ids.copy()
    retired = np.flatnonzero(np.isin(ids, np.array(changed, dtype=np.int64)))
    ids[retired] = NO_ROWS
    return ids, np.union1d(dead, retired)


def chunk_count(conn: sqlite3.Connection, vault_id: str) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM chunks WHERE vault_id = ?", (vault_id,)).fetchone()[0])


def vector_dim(conn: sqlite3.Connection, model: str) -> int:
    """The model's vector size (0: no vector yet). Below 256 the first pass does not answer, and
    reading every row from the file would be slower than holding them: they stay in memory."""
    row = conn.execute("SELECT length(vector) FROM embeddings WHERE model = ? LIMIT 1", (model,)).fetchone()
    return int(row[0]) // 4 if row else 0
