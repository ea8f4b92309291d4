"""Bulk-load mode: the SQL that makes writing thousands of notes at once cheap, and undoes it.

While a bulk load runs, the trigram index is deferred (`fts_control.trigram_deferred`; regex
search scans instead of prefiltering, so every query stays complete) and WAL auto-checkpoints
stop. On an empty index the query-only secondary indexes are dropped too, their definitions kept
in `deferred_indexes` so they are built once at the end — or on the next start, should the
process die first (`restore_indexes`). The writer's page cache is raised to `BULK_CACHE_KIB`
for the load and the trigram rebuild and lowered back afterwards: SQLite keeps a filled cache,
and the 8 MB a cold index fills would otherwise stay allocated for good. Everything here runs
inside one writer transaction.
"""

from __future__ import annotations

from typing import Any

from service.storage.db import BULK_CACHE_KIB, CACHE_KIB, set_cache

# Indexes of the derived-row tables that only queries use: writing an empty index never needs
# them (deleting a note's rows does: note_id lookups and cascades are served by other indexes
# or primary keys only in part, so they are dropped only while the whole index is empty).
DEFERRABLE_INDEXES = (
    "note_tags_by_tag",
    "note_properties_by_key",
    "note_properties_by_note",
    "links_by_src",
    "links_by_target",
    "links_unresolved",
    "headings_by_note",
    "tasks_by_note",
    "tasks_by_vault_due",
)


def bulk_mode(conn: Any, on: bool) -> None:
    """Around a bulk load: defer the trigram index and stop WAL auto-checkpoints, which would
    otherwise copy the same growing pages into the database again and again (~15 % of a cold
    index); the normal threshold comes back afterwards and the next commit checkpoints once.
    On an empty index the secondary indexes of the derived-row tables are dropped too and
    built once at the end (`restore_indexes`), their definitions kept in `deferred_indexes`."""
    if on:
        set_cache(conn, BULK_CACHE_KIB)
        conn.execute("UPDATE fts_control SET trigram_deferred = 1")
        if conn.execute("SELECT NOT EXISTS (SELECT 1 FROM notes)").fetchone()[0]:
            marks = ",".join("?" * len(DEFERRABLE_INDEXES))
            found = conn.execute(
                f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name IN ({marks})",
                DEFERRABLE_INDEXES,
            ).fetchall()
            conn.executemany("INSERT OR REPLACE INTO deferred_indexes(name, sql) VALUES (?, ?)", found)
            for name, _sql in found:
                conn.execute(f'DROP INDEX "{name}"')
    else:
        restore_indexes(conn)
    conn.execute(f"PRAGMA wal_autocheckpoint={0 if on else 1000}")


def restore_indexes(conn: Any) -> int:
    """Build every index a bulk load deferred (also one a previous process did not finish), and
    lower the writer's page cache back to its size between bulk loads (also after a failed one)."""
    waiting = conn.execute("SELECT name, sql FROM deferred_indexes ORDER BY name").fetchall()
    for name, sql in waiting:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (name,)).fetchone() is None:
            conn.execute(sql)
    conn.execute("DELETE FROM deferred_indexes")
    set_cache(conn, CACHE_KIB)
    return len(waiting)


def rebuild_trigram(conn: Any) -> None:
    """Rebuild the deferred trigram index in one pass and mark it complete."""
    set_cache(conn, BULK_CACHE_KIB)
    try:
        conn.execute("INSERT INTO fts_trigram(fts_trigram) VALUES ('rebuild')")
        conn.execute("UPDATE fts_control SET trigram_deferred = 0")
    finally:
        set_cache(conn, CACHE_KIB)
