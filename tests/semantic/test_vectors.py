"""sqlite-vec `vec0` and the exact numpy scan give the same neighbours; a server whose sqlite-vec
cannot load answers semantic searches through the scan; deleted chunks leave the vec0 table."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import numpy as np
import pytest

from service.semantic import vectors
from service.storage.db import Database
from service.storage.migrate import migrate
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


@pytest.fixture
async def chunk_db(tmp_path: Path) -> AsyncIterator[sqlite3.Connection]:
    """A migrated cache.db (the real tables and triggers) opened as one plain connection."""
    db = Database(tmp_path / "cache.db", readers=1)
    await db.open()
    await migrate(db)
    await db.close()
    conn = sqlite3.connect(tmp_path / "cache.db", isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA foreign_keys=ON")
    try:
        yield conn
    finally:
        conn.close()


class Chunks:
    """Notes, chunks and vectors written as the indexer and the embedding job write them."""

    def __init__(self, conn: sqlite3.Connection, dim: int = 8) -> None:
        self.conn, self.dim = conn, dim
        self.rng = np.random.default_rng(7)
        self.notes: set[int] = set()

    def note(self, note_id: int) -> None:
        if note_id not in self.notes:
            self.conn.execute(
                "INSERT INTO notes(id, vault_id, path, folder, name, title, mtime, size, etag, indexed_at) "
                "VALUES (?, 'v', ?, '', ?, ?, 0, 0, '', 0)",
                (note_id, f"n{note_id}.md", f"n{note_id}", f"n{note_id}"),
            )
            self.notes.add(note_id)

    def chunk(self, chunk_id: int | None, note_id: int, position: int, digest: str, vector: bool = True) -> int:
        self.note(note_id)
        self.conn.execute("DELETE FROM chunks WHERE note_id = ? AND position = ?", (note_id, position))
        cur = self.conn.execute(
            "INSERT INTO chunks(id, vault_id, note_id, position, text, embed_text, hash, tokens) "
            "VALUES (?, 'v', ?, ?, '', '', ?, 1)",
            (chunk_id, note_id, position, digest),
        )
        if vector:
            self.vector(digest)
        return int(cur.lastrowid or 0)

    def vector(self, digest: str, model: str = "m") -> None:
        vec = self.rng.standard_normal(self.dim).astype(np.float32)
        self.conn.execute("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)", (model, digest, vec.tobytes()))


def _same_rows(a: vectors._Matrix, b: vectors._Matrix) -> None:
    """Two matrices hold the same live (chunk id, vector) rows, whatever their order."""
    rows_a = {int(i): a.vectors[n].tobytes() for n, i in enumerate(a.ids) if i >= 0}
    rows_b = {int(i): b.vectors[n].tobytes() for n, i in enumerate(b.ids) if i >= 0}
    assert rows_a == rows_b
    assert a.live == len(rows_a)


async def test_the_scan_matrix_follows_every_change_without_a_full_read(
    chunk_db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New chunks, gone chunks (also through a deleted note), a chunk id reused for other text, a
    hash changed in place, a vector arriving late and a vector dropped: the matrix re-reads only
    the logged chunks and ends equal to a matrix read from scratch; a search holding the earlier
    snapshot still reads its own rows."""
    conn, w = chunk_db, Chunks(chunk_db)
    for i in range(1, 7):
        w.chunk(i, note_id=1 + i // 3, position=i % 3, digest=f"h{i}")
    w.chunk(10, note_id=9, position=0, digest="late", vector=False)
    cache = vectors.ScanCache()
    first = cache.matrix(conn, "v", "m")
    assert sorted(first.ids.tolist()) == [1, 2, 3, 4, 5, 6]
    before = first.vectors.copy()
    assert cache.matrix(conn, "v", "m") is first  # nothing changed: no query but the log's head

    def no_full_read(*args: object) -> object:
        raise AssertionError("read from scratch")

    monkeypatch.setattr(vectors, "_read", no_full_read)
    w.chunk(11, note_id=5, position=0, digest="h11")  # new
    conn.execute("DELETE FROM chunks WHERE id = 2")  # gone
    conn.execute("DELETE FROM notes WHERE id = 2")  # its chunks go by the cascade (3, 4, 5)
    w.chunk(2, note_id=6, position=0, digest="h2-other")  # a reused id, other text
    w.vector("h1-edited")
    conn.execute("UPDATE chunks SET hash = 'h1-edited' WHERE id = 1")  # other text in place
    w.vector("late")  # a backlog vector stored
    conn.execute("DELETE FROM embeddings WHERE hash = 'h6'")  # a vector dropped
    updated = cache.matrix(conn, "v", "m")
    assert updated is not first and updated.seq == vectors.last_change(conn)
    monkeypatch.undo()
    _same_rows(updated, vectors.ScanCache().matrix(conn, "v", "m"))
    assert sorted(int(i) for i in updated.ids if i >= 0) == [1, 2, 10, 11]
    assert np.array_equal(first.vectors, before)  # the old snapshot is untouched
    q = w.rng.standard_normal(8).astype(np.float32)
    for k in (1, 3, 5, 9):
        assert vectors.knn_scan(conn, cache, "v", "m", q, k) == vectors.knn_scan(
            conn, vectors.ScanCache(), "v", "m", q, k
        )
    assert cache.rows(conn, "v", "m") == 4


async def test_the_scan_matrix_compacts_and_rereads_when_far_behind(
    chunk_db: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many retired rows are compacted away; more changes than `REREAD_OVER`, a `reload`, or a
    snapshot behind the pruned log mean a read from scratch; every way ends equal to a fresh read."""
    conn, w = chunk_db, Chunks(chunk_db)
    for i in range(1, 2001):
        w.chunk(i, note_id=i // 50 + 1, position=i % 50, digest=f"h{i}")
    cache = vectors.ScanCache()
    first = cache.matrix(conn, "v", "m")
    for i in range(1, 1600, 2):  # 800 rows retired and replaced with other text
        w.chunk(i, note_id=i // 50 + 1, position=i % 50, digest=f"h{i}-b")
    compacted = cache.matrix(conn, "v", "m")
    assert compacted.store is not first.store and not len(compacted.dead)
    _same_rows(compacted, vectors.ScanCache().matrix(conn, "v", "m"))

    monkeypatch.setattr(vectors, "REREAD_OVER", 10)
    for i in range(2001, 2031):
        w.chunk(i, note_id=900, position=i, digest=f"h{i}")
    far = cache.matrix(conn, "v", "m")
    assert not len(far.dead) and len(far.ids) == 2030
    _same_rows(far, vectors.ScanCache().matrix(conn, "v", "m"))

    monkeypatch.setattr(vectors, "CHANGES_KEPT", 5)
    conn.execute("DELETE FROM chunks WHERE id <= 3")
    vectors.prune_changes(conn)
    assert conn.execute("SELECT COUNT(*) FROM chunk_changes").fetchone()[0] == 5
    behind = cache.matrix(conn, "v", "m")  # 3 changes, but the log only holds the last 5: fine
    _same_rows(behind, vectors.ScanCache().matrix(conn, "v", "m"))
    conn.execute("DELETE FROM chunks WHERE id <= 20")  # 17 more: the snapshot is behind the log
    reread = cache.matrix(conn, "v", "m")
    assert not len(reread.dead)
    _same_rows(reread, vectors.ScanCache().matrix(conn, "v", "m"))

    cache.reload("v")
    assert cache.matrix(conn, "v", "m") is not reread


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
        # read through the covering index (migration 0014): every other field as the table has it
        # (the heading path, like the text, is read with the text)
        assert rows_bare == {i: dataclasses.replace(r, text="", headings="[]") for i, r in rows.items()}
        assert {i: r.heading_path() for i, r in rows.items()} == {h.row.chunk_id: h.row.heading_path() for h in filled}


async def test_the_backlog_check_answers_as_the_counts_do(chunk_db: sqlite3.Connection) -> None:
    """`has_backlog` (what a search asks while the job catches up) says yes exactly when the
    counts show a backlog: a note not chunked yet, or a chunk past the floor without its vector."""
    from service.semantic import store
    from service.semantic.chunker import CHUNKER_VERSION

    conn, w = chunk_db, Chunks(chunk_db)

    def agree(after: int = 0) -> bool:
        found = store.has_backlog(conn, "v", "m", after)
        assert found == (store.counts(conn, "v", "m").backlog > 0) or after > 0
        return found

    assert not agree()  # an empty vault
    w.chunk(1, note_id=1, position=0, digest="a")
    assert agree()  # the note has chunks but no record of being chunked from its text
    conn.execute("INSERT INTO chunk_sources VALUES (1, '', 'n1', ?)", (CHUNKER_VERSION,))
    assert not agree()
    w.chunk(2, note_id=1, position=1, digest="b", vector=False)
    assert agree() and agree(after=1)
    assert not store.has_backlog(conn, "v", "m", after=2)  # the floor says chunk 2 is done
    w.vector("b")
    assert not agree()
    conn.execute("UPDATE notes SET etag = 'edited' WHERE id = 1")
    assert agree()


async def test_counts_past_a_floor_and_settled_counts_agree_with_the_full_join(chunk_db: sqlite3.Connection) -> None:
    """`counts(after=floor)` joins only the chunks past the floor with their vectors; the
    chunks up to it are counted as embedded. With a true floor it answers as the full join does,
    and `settled_counts` answers so for a vault with nothing left to do."""
    from service.semantic import store
    from service.semantic.chunker import CHUNKER_VERSION

    conn, w = chunk_db, Chunks(chunk_db)
    for i in range(1, 31):
        w.chunk(i, note_id=i // 10 + 1, position=i % 10, digest=f"d{i}", vector=i <= 20 or i % 3 == 0)
    for note in w.notes:
        conn.execute("INSERT INTO chunk_sources VALUES (?, '', ?, ?)", (note, f"n{note}", CHUNKER_VERSION))
    full = store.counts(conn, "v", "m")
    assert (full.chunks, full.embedded, full.backlog) == (30, 24, 6)
    for after in (0, 5, 20):  # every chunk up to 20 has its vector
        assert store.counts(conn, "v", "m", after) == full
    assert store.counts(conn, "v", "m", 30).embedded == 30  # a false floor is believed: callers own it
    assert store.counts(conn, "v", "other-model", 0).embedded == 0
    for i in range(21, 31):
        w.vector(f"d{i}")
    done = store.counts(conn, "v", "m")
    assert done.backlog == 0 and store.settled_counts(conn, "v") == done == store.counts(conn, "v", "m", 25)
    conn.execute(
        "INSERT INTO notes(id, vault_id, path, folder, name, title, mtime, size, etag, indexed_at) "
        "VALUES (99, 'v', 'b.canvas', '', 'b', 'b', 0, 0, '', 0)"
    )
    assert store.settled_counts(conn, "v") == done  # a canvas is no note to chunk


async def test_unused_vectors_go_for_every_model_and_used_ones_stay(chunk_db: sqlite3.Connection) -> None:
    """The embedding job's clean-up: a vector whose text no chunk holds any more is deleted (for
    every model), one a chunk still holds stays, whichever vault's chunk it is."""
    from service.semantic import store

    conn, w = chunk_db, Chunks(chunk_db)
    w.chunk(1, note_id=1, position=0, digest="kept")
    w.chunk(2, note_id=1, position=1, digest="dropped")
    w.chunk(3, note_id=2, position=0, digest="shared")
    for digest in ("kept", "dropped", "shared"):
        w.vector(digest, model="older")
    w.vector("orphan")  # a text no chunk ever held
    conn.execute("UPDATE chunks SET vault_id = 'other' WHERE id = 3")
    conn.execute("DELETE FROM chunks WHERE id = 2")

    assert store.unused_vectors(conn) == 3  # "dropped" for both models, "orphan"
    left = set(conn.execute("SELECT model, hash FROM embeddings").fetchall())
    assert left == {(m, h) for m in ("m", "older") for h in ("kept", "shared")}
    assert store.unused_vectors(conn) == 0
