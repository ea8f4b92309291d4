"""The test harness's seeded first start (tests/conftest.py `MigratedDatabases`) leaves the same
databases as a first start that applies every migration itself: the same tables, indexes,
triggers and rows of every table the migrations fill, in cache.db, state.db and experiential.db.
A start on a folder with a database of its own is not seeded."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from service.app import VaultgateApp
from tests.conftest import UNSEEDED_START, MigratedDatabases, settings_for

STAMPED = {"vaults", "index_state"}  # rows the start writes with the time it ran


def _contents(path: Path) -> dict[str, object]:
    """The schema and every plain table's rows (applied_at aside: when the migration ran; the
    full-text tables are read through the extensions, and an empty vault leaves them empty)."""
    conn = sqlite3.connect(path)
    try:
        schema = sorted(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall(), key=str)
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        rows: dict[str, object] = {"schema": schema}
        for table in tables:
            if table == "schema_migrations":
                rows[table] = conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
            elif not table.startswith(("sqlite_", "fts", "notes_fts", "trigram")) and "_fts" not in table:
                rows[table] = sorted(conn.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr)
        return rows
    finally:
        conn.close()


async def _first_start(root: Path, *, seeded: bool) -> list[Path]:
    app = VaultgateApp(settings_for(root, storage={"cache_dir": root.parent / f"cache-{seeded}"}))
    # unseeded: the start as the service runs it, without the harness's seeding
    await (app.start() if seeded else UNSEEDED_START(app))
    await app.experiences.opened()  # opened (and migrated) by its first use (service.memory.experiences)
    await app.stop()
    return [app.db.path, app.state.path, app.experiences.path]


async def test_a_seeded_first_start_leaves_what_applying_every_migration_leaves(
    make_vault: Callable[..., Path], _migrated_databases: MigratedDatabases
) -> None:
    root = make_vault({})  # no note: the index's rows are the migrations' own
    seeded = await _first_start(root, seeded=True)
    assert _migrated_databases.copies >= 1  # this start was seeded
    applied = await _first_start(root, seeded=False)
    for one, other in zip(seeded, applied, strict=True):
        assert one.name == other.name
        mine, theirs = _contents(one), _contents(other)
        assert mine.keys() == theirs.keys()
        for table in mine:
            if table not in STAMPED:
                assert mine[table] == theirs[table], (one.name, table)


async def test_a_start_on_a_folder_with_a_database_is_not_seeded(
    make_vault: Callable[..., Path], tmp_path: Path, _migrated_databases: MigratedDatabases
) -> None:
    cache = tmp_path / "own-cache"
    cache.mkdir()
    conn = sqlite3.connect(cache / "cache.db")
    conn.execute("CREATE TABLE mine(x)")
    conn.close()
    app = VaultgateApp(settings_for(make_vault({"A.md": "# A\n"}), storage={"cache_dir": cache}))
    copies = _migrated_databases.copies
    _migrated_databases.seed(app)
    assert _migrated_databases.copies == copies and not (cache / "data").exists()
    conn = sqlite3.connect(cache / "cache.db")
    assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("mine",)]
    conn.close()
