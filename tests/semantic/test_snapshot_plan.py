"""What a snapshot's update asks of the index: on the real schema (every migration) and with no
statistics yet, as a fresh index has them until its first `PRAGMA optimize`, the vectors of the
changed chunks are read by the chunks' ids, never by walking every vector of the model; and the
rows read are those of the changed chunks in the vault asked for."""

from __future__ import annotations

import sqlite3

import numpy as np

from service.semantic import snapshot
from service.storage.db import connect
from service.storage.migrate import _apply_all, load_migrations

MODEL = "m"


def _index() -> sqlite3.Connection:
    """40 notes with one chunk each, half in another vault, every chunk with a vector."""
    conn = connect(":memory:")
    _apply_all(conn, load_migrations())
    for nid in range(1, 41):
        vault = "other" if nid % 2 == 0 else "v"
        conn.execute(
            "INSERT INTO notes (id, vault_id, path, folder, name, title, mtime, size, etag, indexed_at)"
            " VALUES (?, ?, ?, '', ?, ?, 0, 1, 'e', 0)",
            (nid, vault, f"{nid}.md", str(nid), str(nid)),
        )
        conn.execute(
            "INSERT INTO chunks (id, vault_id, note_id, position, text, embed_text, hash, tokens)"
            " VALUES (?, ?, ?, 0, 'x', 'x', ?, 1)",
            (nid, vault, nid, f"h{nid}"),
        )
        conn.execute(
            "INSERT INTO embeddings (model, hash, vector) VALUES (?, ?, ?)",
            (MODEL, f"h{nid}", np.full(4, nid, dtype=np.float32).tobytes()),
        )
    conn.commit()
    return conn


def test_the_changed_chunks_vectors_are_read_by_id_without_statistics() -> None:
    conn = _index()
    assert not conn.execute("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'").fetchall()
    rows = np.zeros((2, 4), dtype=np.float32)
    old = snapshot.Matrix(
        version=0,
        seq=0,
        ids=np.array([1, 3], dtype=np.int64),
        vectors=rows,
        store=rows,
        dead=np.array([], dtype=np.int64),
    )
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    try:
        got = snapshot.changes(conn, old, "v", MODEL, seq=10**9)
    finally:
        conn.set_trace_callback(None)
    assert got is not None
    changed, found = got
    assert sorted(found) == [n for n in range(1, 41) if n % 2 == 1]  # this vault's chunks only
    assert found[5] == np.full(4, 5, dtype=np.float32).tobytes()
    lookups = [s for s in seen if "FROM chunks c" in s and "embeddings e" in s]
    assert lookups, seen
    for sql in lookups:
        plan = " | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
        assert "SEARCH c USING INTEGER PRIMARY KEY" in plan, plan
        assert "(model=? AND hash=?)" in plan, plan
