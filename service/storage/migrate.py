"""Forward-only schema migrations from numbered SQL files, recorded in `schema_migrations`.

Files are `NNNN_name.sql`, numbered from 0001 without gaps; each runs in its own transaction.
The installed wheel carries them as `service/_migrations`; a source checkout reads the
repository's top-level `migrations/` folder.
"""

from __future__ import annotations

import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from service.errors import MigrationError
from service.storage.db import Database, in_thread

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations_dir() -> Path:
    packaged = Path(__file__).resolve().parent.parent / "_migrations"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "migrations"


def load_migrations(folder: Path | None = None) -> list[Migration]:
    folder = folder or migrations_dir()
    found: list[Migration] = []
    for path in sorted(folder.glob("*.sql")):
        match = _NAME.match(path.name)
        if not match:
            raise RuntimeError(f"migration file {path.name!r} is not named NNNN_name.sql")
        found.append(Migration(int(match.group(1)), match.group(2), path.read_text(encoding="utf-8")))
    for expected, migration in enumerate(found, start=1):
        if migration.version != expected:
            raise RuntimeError(f"migrations are not gap-free: expected {expected:04d}, found {migration.version:04d}")
    return found


def _apply_all(conn: sqlite3.Connection, migrations: list[Migration]) -> list[int]:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
    )
    done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
    applied: list[int] = []
    for migration in migrations:
        if migration.version in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(migration.sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, time.time()),
            )
        except Exception as exc:
            conn.execute("ROLLBACK")
            raise MigrationError(f"migration {migration.version:04d}_{migration.name} failed: {exc}") from exc
        conn.execute("COMMIT")
        applied.append(migration.version)
    return applied


def _statements(sql: str) -> list[str]:
    """Split a script on statement boundaries (sqlite3.complete_statement), keeping triggers whole."""
    out: list[str] = []
    buf = ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip() and not buf.strip().startswith("--"):
        out.append(buf.strip())
    return out


async def migrate(db: Database, folder: Path | None = None) -> list[int]:
    """Apply pending migrations on the writer; returns the versions applied."""
    migrations = load_migrations(folder)
    writer = db.writer
    async with db._write_lock:  # noqa: SLF001 - the migrator is part of storage
        return await in_thread(writer, lambda raw: _apply_all(raw, migrations))
