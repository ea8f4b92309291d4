"""sqlite-vec `vec0` and the exact numpy scan give the same neighbours; a server whose sqlite-vec
cannot load answers semantic searches through the scan; deleted chunks leave the vec0 table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.semantic import vectors
from tests.semantic.helpers import VAULT, semantic, settled

QUERIES = ["bread", "money owed to the state", "young cat", "trains in spring", "nothing at all"]


async def test_vec0_and_scan_return_the_same_neighbours(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as h:
        engine = h.app.semantic
        if not h.app.db.backends.vec:
            pytest.skip(f"sqlite-vec does not load here: {h.app.db.backends.vec_error}")
        model = engine.embedder().name
        for query in QUERIES:
            q = await engine.query_vector(query)

            def both(conn, q=q):  # type: ignore[no-untyped-def]
                assert vectors.has_table(conn, model)
                via_vec = vectors.knn_vec(conn, "main", model, q, 5)
                via_scan = vectors.knn_scan(conn, engine.cache, "main", model, q, 5)
                return via_vec, via_scan

            via_vec, via_scan = await h.app.db.run_read(both)
            assert [i for i, _ in via_vec] == [i for i, _ in via_scan]
            assert [round(s, 4) for _, s in via_vec] == [round(s, 4) for _, s in via_scan]
        # The same through the tool, both paths (a small vault is scanned in memory unless the
        # scan's memory bound is 0).
        for query in QUERIES:
            engine.scan_max_bytes = 0
            first = await h.ok("search_semantic", query=query, limit=4)
            engine.scan_max_bytes = vectors.SCAN_MAX_BYTES
            engine.force_scan = True
            second = await h.ok("search_semantic", query=query, limit=4)
            engine.force_scan = False
            assert [(i["path"], i["score"]) for i in first["items"]] == [
                (i["path"], i["score"]) for i in second["items"]
            ]


async def test_deleted_chunks_leave_the_vec0_table(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(VAULT)) as h:
        if not h.app.db.backends.vec:
            pytest.skip("sqlite-vec does not load here")
        table = vectors.table_name(h.app.semantic.embedder().name)

        async def count() -> int:
            return int((await h.app.db.fetchone(f"SELECT COUNT(*) FROM {table}"))[0])

        chunks = int((await h.app.db.fetchone("SELECT COUNT(*) FROM chunks"))[0])
        assert await count() == chunks
        await h.ok("delete_note", path="Baking/Sourdough.md")
        await settled(h)
        assert await count() == chunks - 2
        assert (await h.app.db.fetchone("SELECT COUNT(*) FROM chunks_dropped"))[0] == 0


async def test_without_sqlite_vec_the_scan_answers(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.storage import db

    def refuse(conn: object) -> None:
        raise RuntimeError("extension loading is disabled")

    monkeypatch.setattr(db, "load_vec", refuse)
    async with semantic(make_vault(VAULT)) as h:
        assert h.app.db.backends.vec is False
        health = await h.ok("server_health")
        assert health["vector_search"] == "exact-scan" and health["backends"]["sqlite_vec"] is False
        out = await h.ok("search_semantic", query="how do I make bread with a natural leaven", limit=1)
        assert out["items"][0]["path"] == "Baking/Sourdough.md"
        out = await h.ok("find_similar", path="Pets/Cats.md", limit=1)
        assert out["items"][0]["path"] == "Private/Diary.md"


def test_the_scan_matrix_follows_added_changed_and_dropped_chunks() -> None:
    """An update of the in-memory matrix (new vectors fetched, rows of gone chunks dropped, a reused
    chunk id with other text re-read) equals a matrix read from scratch."""
    import sqlite3

    import numpy as np

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE chunks (id INTEGER PRIMARY KEY, vault_id TEXT, hash TEXT)")
    conn.execute("CREATE TABLE embeddings (model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))")
    rng = np.random.default_rng(7)

    def add(chunk_id: int, digest: str) -> None:
        conn.execute("INSERT OR REPLACE INTO chunks VALUES (?, 'v', ?)", (chunk_id, digest))
        vec = rng.standard_normal(8).astype(np.float32)
        conn.execute("INSERT OR IGNORE INTO embeddings VALUES ('m', ?, ?)", (digest, vec.tobytes()))

    cache = vectors.ScanCache()
    for i in range(1, 6):
        add(i, f"h{i}")
    conn.execute("INSERT INTO chunks VALUES (6, 'v', 'no-vector-yet')")
    first = cache.matrix(conn, "v", "m")
    assert first.ids.tolist() == [1, 2, 3, 4, 5]
    add(7, "h7")  # new
    conn.execute("DELETE FROM chunks WHERE id = 2")  # gone
    add(4, "h4-edited")  # same id, other text
    assert cache.matrix(conn, "v", "m") is first  # nothing re-read until the version moves on
    cache.bump("v")
    updated = cache.matrix(conn, "v", "m")
    fresh = vectors.ScanCache().matrix(conn, "v", "m")
    assert updated.ids.tolist() == fresh.ids.tolist() == [1, 3, 4, 5, 7]
    assert np.array_equal(updated.vectors, fresh.vectors)
    q = rng.standard_normal(8).astype(np.float32)
    assert vectors.knn_scan(conn, cache, "v", "m", q, 3) == vectors.knn_scan(conn, vectors.ScanCache(), "v", "m", q, 3)


async def test_rows_read_without_text_get_the_same_texts_afterwards(make_vault: Callable[..., Path]) -> None:
    from service.semantic import search as sem
    from service.semantic.engine import chunk_rows

    async with semantic(make_vault(VAULT)) as h:
        engine = h.app.semantic
        model = engine.embedder().name
        q = await engine.query_vector("young cat")
        keep = sem.NoteFilter(can_read=lambda p: True)

        def read(conn):  # type: ignore[no-untyped-def]
            full = sem.nearest(engine, conn, "main", q, 3, keep, model)
            bare = sem.nearest(engine, conn, "main", q, 3, keep, model, text=False)
            ids = [hit.row.chunk_id for hit in full]
            return full, bare, sem.with_text(conn, bare), chunk_rows(conn, ids), chunk_rows(conn, ids, text=False)

        full, bare, filled, rows, rows_bare = await h.app.db.run_read(read)
        assert full and all(hit.row.text for hit in full)
        assert all(hit.row.text == "" for hit in bare)
        assert filled == full
        assert {i: r.text for i, r in rows.items()} == {hit.row.chunk_id: hit.row.text for hit in full}
        assert all(r.text == "" for r in rows_bare.values()) and rows_bare.keys() == rows.keys()
