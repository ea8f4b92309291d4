"""The writer's page cache after the whole-table reads a start makes on it (issue 39): the word
index's segment count and merge, the embedding job's vector sync and canvas sweep. Each filled the
writer's 2 MB at every start and kept it; each now reads with the scan cap and frees its pages
(`service.storage.scan_cache`). Measured through `sqlite3_db_status` on a migrated cache.db of
~4 MB, the writer's cache emptied first."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from service.semantic import store, vectors
from service.storage import db as dbmod
from service.storage.migrate import migrate
from service.storage.scan_cache import SCAN_CACHE_KIB
from service.storage.word_index import compact_words, word_segments
from tests.unit.storage.test_page_caches import _cache_used

NOTES = 3000
MODEL = "test-model"
DIM = 8
SMALL = 2 * SCAN_CACHE_KIB * 1024  # what a scan may leave; the writer's own cap is 2 MB
used = _cache_used()
pytestmark = pytest.mark.skipif(used is None, reason="the SQLite library does not export sqlite3_db_status")


def _fill(conn: dbmod.sqlite3.Connection) -> None:
    """NOTES notes of ~1 KB each (properties), one chunk each (~1 KB of text) whose vector is in
    the model's table already, and the word index in several segments (one per write)."""
    rng = random.Random(39)
    words = [f"w{n}" for n in range(4000)]
    for start in range(0, NOTES, NOTES // 6):  # six transactions: six segments of fts_words
        conn.execute("BEGIN IMMEDIATE")
        for n in range(start, start + NOTES // 6):
            body = " ".join(rng.choices(words, k=150))
            conn.execute(
                "INSERT INTO notes(id, vault_id, path, folder, name, title, properties, mtime, size, etag, indexed_at)"
                " VALUES (?, 'v', ?, '', ?, ?, ?, 0, 0, 'e', 0)",
                (n + 1, f"n{n}.md", f"n{n}", f"n{n}", '{"p": "%s"}' % ("x" * 1000)),
            )
            conn.execute(
                "INSERT INTO chunks(id, vault_id, note_id, position, text, embed_text, hash, tokens, vec_model)"
                " VALUES (?, 'v', ?, 0, ?, '', ?, 1, ?)",
                (n + 1, n + 1, body, f"h{n}", MODEL),
            )
            conn.execute(
                "INSERT INTO embeddings(model, hash, vector) VALUES (?, ?, zeroblob(?))", (MODEL, f"h{n}", 4 * DIM)
            )
            conn.execute("INSERT INTO fts_words(rowid, title, body) VALUES (?, ?, ?)", (n + 1, f"n{n}", body))
        conn.execute("COMMIT")


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[dbmod.Database]:
    database = dbmod.Database(tmp_path / "cache.db", readers=1)
    await database.open()
    try:
        await migrate(database)
        await dbmod.in_thread(database.writer, _fill)
        yield database
    finally:
        await database.close()


async def _writer_used(database: dbmod.Database) -> int:
    assert used is not None
    return await dbmod.in_thread(database.writer, used)


async def _emptied(database: dbmod.Database) -> None:
    await database.release_memory()
    assert await _writer_used(database) < SMALL


async def test_the_word_index_merge_leaves_the_writer_s_cache_small(database: dbmod.Database) -> None:
    await _emptied(database)
    assert await database.run_write(word_segments) > 3
    assert await _writer_used(database) < SMALL  # the count reads the segments' index: not kept
    assert await database.run_write(compact_words) is True
    assert await database.run_write(word_segments) == 1
    assert await _writer_used(database) < SMALL
    hits = await database.fetchone("SELECT count(*) FROM fts_words WHERE fts_words MATCH 'w7'")
    assert hits[0] > 0  # the merged index answers


async def test_the_vector_sync_over_every_chunk_leaves_the_writer_s_cache_small(database: dbmod.Database) -> None:
    if not database.backends.vec:
        pytest.skip("sqlite-vec is not loaded")
    await database.run_write(lambda c: vectors.ensure_table(c, MODEL, DIM))
    await _emptied(database)
    assert await database.run_write(lambda c: vectors.sync(c, "v", MODEL, DIM)) == 0  # every chunk read: in already
    assert await _writer_used(database) < SMALL
    await database.run_write(lambda c: c.execute("UPDATE chunks SET vec_model = NULL WHERE id <= 5"))
    await _emptied(database)
    assert await database.run_write(lambda c: vectors.sync(c, "v", MODEL, DIM)) == 5  # and the new ones added
    assert await _writer_used(database) < SMALL


async def test_the_canvas_sweep_leaves_the_writer_s_cache_small(database: dbmod.Database) -> None:
    await database.run_write(lambda c: c.execute("UPDATE notes SET path = 'board.canvas' WHERE id = 7"))
    await _emptied(database)
    assert await database.run_write(lambda c: store.drop_canvas_chunks(c, "v")) == 1
    assert await _writer_used(database) < SMALL


async def test_a_reader_s_scan_frees_its_pages_when_it_ends(database: dbmod.Database) -> None:
    """The scan cap alone left each reader a start's scans went through at ~200 KB for good."""
    assert used is not None
    (reader,) = database._all_readers
    scan = "SELECT count(*), sum(length(properties)) FROM notes"
    assert (await database.run_scan(lambda c: c.execute(scan).fetchone()))[0] == NOTES
    assert await dbmod.in_thread(reader, used) < 64 * 1024  # not the cap's ~200 KB
    assert (await database.run_read(lambda c: c.execute(scan).fetchone()))[0] == NOTES
    assert await dbmod.in_thread(reader, used) > 3_000_000  # an ordinary read fills it as before


async def test_the_point_reader_keeps_a_small_cache_over_many_notes_read(database: dbmod.Database) -> None:
    """read_note's lookup of each note's facts (`note_facts`, once per note): 1 MB filled by 50
    reads at 10k notes and kept; 256 KB keep the inner pages each lookup walks."""
    from service.tools.notes.note_facts import _SQL

    assert used is not None
    database.point_read("PRAGMA shrink_memory")
    for n in range(NOTES):
        assert database.point_read(_SQL, ("v", f"n{n}.md", "e"))[0] == f"n{n}"
    assert database._point is not None
    assert used(database._point) < 300 * 1024  # the cap, and the pages' headers
