"""migrations/0006_title_rule.sql: rows indexed under the old title rule (frontmatter title, else
first H1, else file name) become exactly what the parser derives now."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from service.markdown.parse import parse_note
from service.storage.db import Database
from service.storage.migrate import load_migrations, migrate, migrations_dir

# path, text, the title the old rule stored
OLD_ROWS = [
    ("Projects/Launch plan.md", "---\ntitle: Go live\n---\n# The launch\n", "Go live"),
    ("Archive/Plan.md", "# Old plan\n", "Old plan"),
    ("Welcome.md", "# Welcome\n", "Welcome"),
    ("Ünï/Ça va.md", "no heading\n", "Ça va"),
    ("a/a/a.b.md", "# Dots\n", "Dots"),
]


@pytest.fixture
async def old_db(tmp_path: Path) -> Database:
    folder = tmp_path / "migrations"
    folder.mkdir()
    for m in load_migrations():
        if m.version < 6:
            name = f"{m.version:04d}_{m.name}.sql"
            shutil.copy(migrations_dir() / name, folder / name)
    db = Database(tmp_path / "cache.db", readers=1)
    await db.open()
    await migrate(db, folder)
    async with db.transaction() as conn:
        for i, (path, _text, title) in enumerate(OLD_ROWS, start=1):
            await conn.execute(
                "INSERT INTO notes(id, vault_id, path, folder, name, title, mtime, size, etag, indexed_at)"
                " VALUES (?, 'main', ?, '', '', ?, 0, 0, '', 0)",
                (i, path, title),
            )
            await conn.execute("INSERT INTO note_text(note_id, title, body) VALUES (?, ?, '')", (i, title))
    return db


async def test_old_titles_become_the_file_name_and_the_search_title_the_parser_derives(old_db: Database) -> None:
    try:
        assert 6 in await migrate(old_db)  # and any later migration
        titles = {str(r[0]): str(r[1]) for r in await old_db.fetchall("SELECT path, title FROM notes")}
        shown = {
            int(r[0]): str(r[1]) for r in await old_db.fetchall("SELECT note_id, title FROM note_text ORDER BY note_id")
        }
        for i, (path, text, _) in enumerate(OLD_ROWS, start=1):
            parsed = parse_note(path, text)
            assert titles[path] == parsed.title
            assert shown[i] == parsed.search_title
        # The full-text index follows (the note_text update trigger).
        hits = await old_db.fetchall("SELECT rowid FROM fts_words WHERE fts_words MATCH 'title:launch'")
        assert [r[0] for r in hits] == [1]
        hits = await old_db.fetchall("SELECT rowid FROM fts_words WHERE fts_words MATCH 'title:live'")
        assert [r[0] for r in hits] == [1]
    finally:
        await old_db.close()
