"""A cold load leaves FTS5's merging off (`bulk.LOAD_MERGE`) until the word merge job runs,
after the query indexes (and across a restart before it). Notes stored meanwhile one savepoint
each (`rows.upsert_each`: a write's index update, a rename rewriting many notes, a reconcile's
batch that is not a bulk load) each left a segment of the word index that nothing merged, and
past FTS5's limit of segments the whole update failed with "database or disk is full" (seen: a
hub note's rename rewriting 1,500 notes right after a cold load). FTS5's defaults now come back
before such a write (`bulk.settle_word_merge`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.indexer import bulk, parsepool, runner
from service.storage.db import connect
from tests.conftest import started

NOTES = 60
MANY = 4_200  # notes: with merging off FTS5 refused the ~4,000th savepoint's flush (FTS5_MAX_SEGMENT)


async def test_notes_stored_one_by_one_after_a_cold_load_whose_merge_has_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    (vault / "many").mkdir(parents=True)
    for i in range(NOTES):
        (vault / f"n{i}.md").write_text(f"# Note {i}\n\nplain words {i}\n")
    cache = {"storage": {"cache_dir": tmp_path / "cache"}, "index": {"watch": False, "parse_workers": 0}}
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 50)
    monkeypatch.setattr(parsepool, "MIN_NOTES", 50)
    monkeypatch.setattr(runner, "merge_words", lambda conn: False)  # the process ends before the job runs
    async with started(vault, **cache) as vg:
        await vg.indexed()
        db = vg.app.services.db.path
    probe = connect(db)
    try:
        assert probe.execute("SELECT 1 FROM fts_words_config WHERE k = ?", (bulk.LOAD_MERGE[-1][0],)).fetchone()
    finally:
        probe.close()
    for i in range(MANY):
        (vault / "many" / f"m{i}.md").write_text(f"# M {i}\n\nword{i} zebracorn\n")
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 10**9)  # the next start stores them note by note
    async with started(vault, **cache) as vg:
        await vg.indexed()
        found = await vg.ok("search_text", query="zebracorn m4199")
        assert [hit["path"] for hit in found["items"]][:1] == ["many/m4199.md"]
    conn = connect(db)
    try:
        assert conn.execute("SELECT count(*) FROM fts_words('zebracorn')").fetchone()[0] == MANY
        assert conn.execute("SELECT 1 FROM fts_words_config WHERE k = ?", (bulk.LOAD_MERGE[-1][0],)).fetchone() is None
        conn.execute("INSERT INTO fts_words(fts_words) VALUES ('integrity-check')")
    finally:
        conn.close()
