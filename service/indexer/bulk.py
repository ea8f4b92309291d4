"""Bulk-load mode: the SQL that makes writing thousands of notes at once cheap, and undoes it.

While a bulk load runs, the trigram index is deferred (`fts_control.trigram_deferred`; regex
search scans instead of prefiltering, so every query stays complete) and WAL auto-checkpoints
stop. On an empty index the query-only secondary indexes are dropped too, and so are the
triggers that keep the full-text word index in step with `note_text`: their definitions are kept
in `deferred_indexes` so they are built once at the end — the word index by one 'rebuild' over
`note_text`, about a quarter of the writer's work that row-by-row inserts cost — or on the next
start, should the process die first (`restore_indexes`). A search during a cold load finds
nothing until then (its answer says `partial`); an index with rows never defers the words.
The writer's page cache is raised to `BULK_CACHE_KIB` for the load and the trigram rebuild and
lowered back afterwards: SQLite keeps a filled cache, and the 8 MB a cold index fills would
otherwise stay allocated for good. Everything here runs inside one writer transaction.
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
    "tasks_by_vault_status",
)
# The triggers that keep `fts_words` in step with `note_text` (migrations/0002_index.sql): dropped
# with the indexes above, recreated at the end, and the word index rebuilt once from `note_text`.
# Without them nothing touches `fts_words`, so the rebuild is exact whatever ran meanwhile.
WORD_TRIGGERS = ("note_text_ai", "note_text_ad", "note_text_au")


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
            deferrable = (*DEFERRABLE_INDEXES, *WORD_TRIGGERS)
            marks = ",".join("?" * len(deferrable))
            found = conn.execute(
                f"SELECT name, sql, type FROM sqlite_master WHERE type IN ('index', 'trigger') AND name IN ({marks})",
                deferrable,
            ).fetchall()
            conn.executemany("INSERT OR REPLACE INTO deferred_indexes(name, sql) VALUES (?, ?)", [f[:2] for f in found])
            for name, _sql, kind in found:
                conn.execute(f'DROP {"TRIGGER" if kind == "trigger" else "INDEX"} "{name}"')
    else:
        restore_indexes(conn)
    conn.execute(f"PRAGMA wal_autocheckpoint={0 if on else 1000}")


def restore_indexes(conn: Any) -> int:
    """Build every index a bulk load deferred (also one a previous process did not finish): the
    word index's triggers come back and the word index is rebuilt in one pass, then the query
    indexes are built; the writer's page cache goes back to its size between bulk loads (also
    after a failed one). One transaction: a process that dies here leaves it all deferred."""
    waiting = conn.execute("SELECT name, sql FROM deferred_indexes ORDER BY name").fetchall()
    words = [(name, sql) for name, sql in waiting if name in WORD_TRIGGERS]
    if words:
        set_cache(conn, BULK_CACHE_KIB)  # also when a previous process deferred them
        for name, sql in words:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is None:
                conn.execute(sql)
        conn.execute("INSERT INTO fts_words(fts_words) VALUES ('rebuild')")
    for name, sql in waiting:
        if name in WORD_TRIGGERS:
            continue
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
