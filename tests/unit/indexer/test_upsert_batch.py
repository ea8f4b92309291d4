"""A bulk load's batch stored table by table (`rows.upsert_batch`) leaves the index exactly as note
by note (`rows.upsert_each`), row ids included; a row SQLite refuses costs that note alone."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from service.indexer import rows, runner
from service.indexer.scan import scan_with_paths
from service.storage.db import connect
from service.storage.migrate import _apply_all, load_migrations
from service.vault.paths import VaultPaths
from tests.conftest import started
from tests.real_vaults import VAULTS, needs

HELP = VAULTS / "obsidian-help-en"
TABLES = (
    "notes",
    "note_text",
    "note_tags",
    "note_properties",
    "links",
    "headings",
    "blocks",
    "tasks",
    "dataview_facts",
)


@contextlib.contextmanager
def _index(path: Path) -> Iterator[sqlite3.Connection]:
    conn = connect(path)
    try:
        _apply_all(conn, load_migrations())
        yield conn
    finally:
        conn.close()


def _store(path: Path, prepared: list[rows.Prepared], upsert: Callable[..., list[Any]]) -> dict[str, list[Any]]:
    with _index(path) as conn:
        for i in range(0, len(prepared), 40):
            conn.execute("BEGIN IMMEDIATE")
            assert upsert(conn, "v", prepared[i : i + 40]) == []
            conn.execute("COMMIT")
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in TABLES}


@needs(HELP)
def test_a_batch_stored_table_by_table_equals_the_same_notes_stored_one_by_one(tmp_path: Path) -> None:
    disk, _files, paths = scan_with_paths(VaultPaths(HELP))
    prepared = rows.read_batch(HELP, sorted(disk), {}, paths)[0]
    one_by_one = _store(tmp_path / "each.db", prepared, rows.upsert_each)
    batched = _store(tmp_path / "batch.db", prepared, rows.upsert_batch)
    new = _store(tmp_path / "new.db", prepared, partial(rows.upsert_batch, new=True))
    assert len(one_by_one["notes"]) == len(prepared) and one_by_one["links"] and one_by_one["headings"]
    for table in TABLES:
        assert batched[table] == one_by_one[table], table
        assert new[table] == one_by_one[table], table


def test_a_batch_said_to_be_new_with_a_note_already_stored_is_stored_note_by_note(tmp_path: Path) -> None:
    names = [f"n{i}.md" for i in range(4)]
    for i, name in enumerate(names):
        (tmp_path / name).write_text(f"# Note {i}\n\n[[n{(i + 1) % 4}]] #t{i}\n", encoding="utf-8")
    prepared = rows.read_batch(tmp_path, names, {}, None)[0]
    with _index(tmp_path / "index.db") as conn:
        conn.execute("BEGIN IMMEDIATE")
        assert rows.upsert_each(conn, "v", prepared[1:2]) == []
        assert rows.upsert_batch(conn, "v", prepared, new=True) == []  # n1.md is there: note by note
        conn.execute("COMMIT")
        assert conn.execute("SELECT path FROM notes ORDER BY path").fetchall() == [(n,) for n in names]
        assert conn.execute("SELECT count(*) FROM links").fetchone() == (4,)
        assert conn.execute("SELECT count(*) FROM note_tags").fetchone() == (4,)


async def test_a_note_sqlite_refuses_in_a_bulk_load_is_left_out_alone(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 1)
    original = rows.prepare

    def too_big(item: rows.NoteInput, paths: Any, *rest: Any) -> rows.Prepared:
        prep = original(item, paths, *rest)
        # An integer SQLite cannot store: the batch's statement fails, then this note alone.
        return prep._replace(headings=[(2**70, "Bad", 0)]) if item.path == "Bad.md" else prep

    monkeypatch.setattr(rows, "prepare", too_big)
    batches: list[tuple[int, bool | None]] = []
    batched = rows.upsert_batch

    def counted(conn: sqlite3.Connection, vault_id: str, prepared: list[rows.Prepared], **hint: bool) -> list[Any]:
        batches.append((len(prepared), hint.get("new")))
        return batched(conn, vault_id, prepared, **hint)

    monkeypatch.setattr(rows, "upsert_batch", counted)
    files = {f"n{i}.md": f"# Note {i}\n\nword{i} [[n{i + 1}]] #tag{i}\n" for i in range(6)}
    async with started(make_vault({**files, "Bad.md": "# Bad\n\nbadword #badtag\n"}), index={"watch": False}) as vg:
        await vg.indexed()
        db = vg.app.services.db
        assert sorted(r[0] for r in await db.fetchall("SELECT path FROM notes")) == sorted(files)
        assert len(await db.fetchall("SELECT 1 FROM links")) == 6
        assert not await db.fetchall("SELECT 1 FROM note_tags WHERE tag = 'badtag'")
        assert (await vg.ok("index_status"))["file_warnings"]["by_reason"] == {"store_failed": 1}
    assert batches == [(7, True)]  # the cold load's one batch, through `upsert_batch`, said to be new
