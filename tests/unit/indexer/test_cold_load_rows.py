"""A cold bulk load — parse worker, deferred word index and query indexes, every deferral undone
after ready — leaves exactly the index that storing the same vault note by note leaves: every
row of every derived table, the word index's terms and positions, and the same indexes and
triggers in the schema. What a bulk load defers is a way of writing, never a difference in
what is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.indexer import parsepool, runner
from service.storage.db import connect
from tests.bench.workload import generate
from tests.conftest import started

NOTES = 240
# Each table's rows by the path of their note (ids left out: only the order of writes sets them).
DUMPS = {
    "notes": "SELECT path, folder, name, title, aliases, properties, tags, frontmatter_error, mtime, ctime,"
    " size, etag, word_count FROM notes",
    "note_text": "SELECT n.path, t.title, t.body FROM note_text t JOIN notes n ON n.id = t.note_id",
    "note_tags": "SELECT n.path, t.vault_id, t.tag, t.tag_lower, t.source"
    " FROM note_tags t JOIN notes n ON n.id = t.note_id",
    "note_properties": "SELECT n.path, p.key, p.list_index, p.value_type, p.value_text, p.value_lower, p.value_num,"
    " p.value_json FROM note_properties p JOIN notes n ON n.id = p.note_id",
    "links": "SELECT n.path, l.target_raw, l.target_path, l.subpath, l.alias, l.embed, l.kind, l.line"
    " FROM links l JOIN notes n ON n.id = l.src_id",
    "headings": "SELECT n.path, h.level, h.text, h.line FROM headings h JOIN notes n ON n.id = h.note_id",
    "blocks": "SELECT n.path, b.block_id, b.line FROM blocks b JOIN notes n ON n.id = b.note_id",
    "tasks": "SELECT n.path, t.line, t.status, t.text, t.due, t.scheduled, t.start, t.done, t.priority, t.tags,"
    " t.created, t.cancelled, t.recurrence, t.task_id, t.depends_on FROM tasks t JOIN notes n ON n.id = t.note_id",
    "dataview_facts": "SELECT n.path, f.facts FROM dataview_facts f JOIN notes n ON n.id = f.note_id",
    # every term of the word index, where it occurs (fts5vocab over the index itself)
    "fts_words": "SELECT n.path, v.term, v.col, v.offset FROM temp.words v JOIN notes n ON n.id = v.doc",
    # the word index's options: a load's merge settings (`bulk.LOAD_MERGE`) leave no row behind
    "fts_words_config": "SELECT k, v FROM fts_words_config",
    "schema": "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('index', 'trigger', 'table')",
    "deferred": "SELECT name FROM deferred_indexes",
    "trigram_deferred": "SELECT trigram_deferred FROM fts_control",
}


def _dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = connect(path)
    try:
        conn.execute("INSERT INTO fts_words(fts_words) VALUES ('integrity-check')")  # index = note_text
        conn.execute("CREATE VIRTUAL TABLE temp.words USING fts5vocab(main, fts_words, 'instance')")
        return {name: sorted(conn.execute(sql).fetchall(), key=repr) for name, sql in DUMPS.items()}
    finally:
        conn.close()


async def _index_of(vault: Path, cache: Path, **index: Any) -> dict[str, list[tuple[Any, ...]]]:
    async with started(vault, index={"watch": False, **index}, storage={"cache_dir": cache}) as vg:
        await vg.indexed()
        ix = vg.indexer()
        await ix.query_indexes.settled()
        await ix.trigram.settled()
        await ix.word_merge.settled()  # which ends a load's merge settings (`bulk.merge_words`)
        path = vg.app.services.db.path
    return _dump(path)


async def test_a_cold_bulk_load_stores_what_a_note_by_note_load_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    generate(vault, n=NOTES, meta=tmp_path / "meta.json")
    monkeypatch.setattr(runner, "BATCH", 40)
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 10**9)
    each = await _index_of(vault, tmp_path / "each", parse_workers=0)
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 50)
    monkeypatch.setattr(parsepool, "MIN_NOTES", 50)
    loads: list[bool] = []
    original = parsepool.Parser.batch

    async def spy(self: parsepool.Parser, batch: Any, known: dict[str, str]) -> parsepool.Batch:
        loads.append(self.in_processes)
        return await original(self, batch, known)

    monkeypatch.setattr(parsepool.Parser, "batch", spy)
    bulk = await _index_of(vault, tmp_path / "bulk", parse_workers=1)
    assert loads and all(loads)  # the bulk load's batches went through a parse worker
    assert len(each["notes"]) == NOTES and each["links"] and each["tasks"] and each["fts_words"]
    assert each["deferred"] == [] and each["trigram_deferred"] == [(0,)]
    for name in DUMPS:
        assert bulk[name] == each[name], name
