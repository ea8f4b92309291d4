"""Bulk-load mode: the SQL that makes writing thousands of notes at once cheap, and undoes it.

While a bulk load runs, the trigram index is deferred (`fts_control.trigram_deferred`; regex
search scans instead of prefiltering, so every query stays complete) and WAL auto-checkpoints
stop. On an empty index the query-only secondary indexes are dropped too, and so are the
triggers that keep the full-text word index in step with `note_text`: their definitions are kept
in `deferred_indexes` so they are built once: the word index while the writer waits for parsed
batches and the rest at the end (`words.py`), or by one 'rebuild' over `note_text` after a failed
load; the query indexes one by one after the index is ready (`QueryIndexes`) — or on the next
start, should the process die first (`restore_indexes`). A
search during a cold load finds the notes whose words are indexed so far (its answer says
`partial`); an index with rows never defers the words.
The writer's page cache is raised to `BULK_CACHE_KIB` for the load and the trigram rebuild and
lowered back afterwards: SQLite keeps a filled cache, and the 8 MB a cold index fills would
otherwise stay allocated for good. Everything here runs inside one writer transaction, but
`checkpoint_after_load` (the load's WAL, copied beside the writer once the index is ready).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.storage.db import BULK_CACHE_KIB, CACHE_KIB, Database, connect, set_cache
from service.storage.word_index import compact_words
from service.tasks import cancel_and_wait

log = logging.getLogger(__name__)

AUTOCHECKPOINT_PAGES = 1000  # SQLite's default threshold, between bulk loads

# Secondary indexes that writing an empty index never needs (deleting a note's rows does:
# note_id lookups and cascades are served by other indexes or primary keys only in part, so
# they are dropped only while the whole index is empty): the derived-row tables' and the notes
# table's by name, folder and mtime. The notes ones took a cold 100k load's writer ~3-5 CPU-s
# (replaying the load's rows in process: 29-30 -> 25-27 s, the WAL 2.0 -> 1.5 GB; end to end
# within the runs' spread, the parse worker paces the load: docs/benchmarks.md): a note's
# name and mtime do not follow the load's order, so each 200-note batch dirtied ~200 scattered
# pages of each index, written to the WAL again at every commit (at 10k the indexes are a few
# pages and it showed nothing). In the order a cold load's are built after `ready`
# (`build_next_index`): first the by-note ones a note's update deletes its old rows by, then
# the partial index a new note's link resolution reads (`unresolved.py`), then those only
# queries read (the notes ones first: one small entry a note).
DEFERRABLE_INDEXES = (
    "note_properties_by_note",
    "links_by_src",
    "headings_by_note",
    "tasks_by_note",
    "links_unresolved",
    "notes_by_name",
    "notes_by_folder",
    "notes_by_mtime",
    "links_by_target",
    "note_tags_by_tag",
    "note_properties_by_key",
    "tasks_by_vault_due",
    "tasks_by_vault_status",
)
# The triggers that keep `fts_words` in step with `note_text` (migrations/0002_index.sql): dropped
# with the indexes above, recreated at the end, and the word index rebuilt once from `note_text`.
# Without them nothing touches `fts_words`, so the rebuild is exact whatever ran meanwhile.
WORD_TRIGGERS = ("note_text_ai", "note_text_ad", "note_text_au")
# FTS5's merge settings while a load's word steps (`words.py`) write `fts_words`: no incremental
# merge ('automerge' 0), and no crisis merge before FTS5's limit of segments (it caps the value
# at 1999), so each step's transaction writes its segment and merges nothing. The index is merged
# into one segment once the load is ready anyway (`merge_words`, FTS5's 'optimize'),
# so the merges FTS5 did at each step's commit (automerge 4: every note's terms rewritten ~4
# times over a 100k load) were work thrown away: replaying the 100k load's writer in process, the
# steps' commits 6.3 -> 1.6 CPU-s, the steps 7.4 -> 6.6, for 500 segments instead of 12 and the
# later 'optimize' 1.4 -> 2.5 s; the WAL 1.5 -> 1.0 GB. A search meanwhile reads more segments
# (its answer says `partial` then). The settings stay until that merge (`merge_words`), which puts
# FTS5's defaults back first: back before it, the next write's commit would merge the ~500
# segments of level 0 at once (a crisis merge, ~2 s; at the end of the load, before `ready`).
LOAD_MERGE = (("automerge", 0), ("crisismerge", 2000))
DEFAULT_MERGE = (("automerge", 4), ("crisismerge", 16))  # FTS5's defaults (no row in fts_words_config)


def bulk_mode(
    conn: Any, on: bool, words_from: int | None = None, checkpoint_later: bool = False, queries_later: bool = False
) -> bool:
    """Around a bulk load: defer the trigram index and stop WAL auto-checkpoints, which would
    otherwise copy the same growing pages into the database again and again (~15 % of a cold
    index); the normal threshold comes back afterwards and the next commit checkpoints once —
    with `checkpoint_later`, not this commit: `checkpoint_after_load` does it beside the writer
    once the index is ready (the WAL of a 100k-note load, ~1.8 GB, took ~2.5 s of the commit).
    On an empty index the secondary indexes of the derived-row tables are dropped too and
    built once at the end (`restore_indexes`), their definitions kept in `deferred_indexes`.
    Whether the word index is deferred (then the load may index words as it goes: `words.py`;
    `words_from` at the end says up to which note id it did, see `restore_indexes`).
    `queries_later` at the end: the query indexes stay deferred, built once the index is ready
    (`QueryIndexes`); the word index is complete when this commits."""
    words = False
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
            words = any(name in WORD_TRIGGERS for name, _sql, _kind in found)
            if words:  # empty with no notes (cheap), so the steps of `words.py` start from nothing
                conn.execute("INSERT INTO fts_words(fts_words) VALUES ('delete-all')")
                _merge_settings(conn, LOAD_MERGE)
    else:
        restore_indexes(conn, words_from=words_from, queries=not queries_later)
    conn.execute(f"PRAGMA wal_autocheckpoint={0 if on or checkpoint_later else AUTOCHECKPOINT_PAGES}")
    return words


def restore_indexes(conn: Any, words_from: int | None = None, queries: bool = True) -> int:
    """Build every index a bulk load deferred (also one a previous process did not finish): the
    word index's triggers come back and the word index is rebuilt in one pass — or, given
    `words_from`, only the notes after that id are added (the load indexed the others as it went,
    `words.py`) —, then the query indexes are built (not with `queries` False: they stay in
    `deferred_indexes` for `build_next_index`); the writer's page cache goes back to its size
    between bulk loads (also after a failed one). One transaction: a process that dies here
    leaves it all deferred."""
    waiting = conn.execute("SELECT name, sql FROM deferred_indexes ORDER BY name").fetchall()
    words = [(name, sql) for name, sql in waiting if name in WORD_TRIGGERS]
    if words:
        set_cache(conn, BULK_CACHE_KIB)  # also when a previous process deferred them
        for name, sql in words:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is None:
                conn.execute(sql)
        if words_from is None:
            _merge_settings(conn, DEFAULT_MERGE)  # a 'rebuild' merges as usual
            conn.execute("INSERT INTO fts_words(fts_words) VALUES ('rebuild')")
        else:
            conn.execute(
                "INSERT INTO fts_words(rowid, title, body)"
                " SELECT note_id, title, body FROM note_words WHERE note_id > ?",
                (words_from,),
            )
    if not queries:
        marks = ",".join("?" * len(WORD_TRIGGERS))
        conn.execute(f"DELETE FROM deferred_indexes WHERE name IN ({marks})", WORD_TRIGGERS)
        set_cache(conn, CACHE_KIB)
        return len(words)
    for name, sql in waiting:
        if name not in WORD_TRIGGERS:
            _create(conn, name, sql)
    conn.execute("DELETE FROM deferred_indexes")
    set_cache(conn, CACHE_KIB)
    return len(waiting)


def merge_words(conn: Any) -> bool:
    """The word index's merge after a reconcile (`compact_words`; whether it merged). After a
    cold load, which left `LOAD_MERGE` set, FTS5's defaults come back and the index is merged
    into one segment in the same transaction (the load leaves hundreds). Not while a load defers
    the word index: its steps still write."""
    marks = ",".join("?" * len(WORD_TRIGGERS))
    loading = conn.execute(f"SELECT 1 FROM deferred_indexes WHERE name IN ({marks})", WORD_TRIGGERS).fetchone()
    loaded = conn.execute("SELECT 1 FROM fts_words_config WHERE k = ?", (LOAD_MERGE[-1][0],)).fetchone()
    if loaded is None or loading is not None:
        return compact_words(conn)
    _merge_settings(conn, DEFAULT_MERGE)
    conn.execute("INSERT INTO fts_words(fts_words) VALUES ('optimize')")
    return True


def settle_word_merge(conn: Any) -> bool:
    """Before notes are stored one savepoint each (`rows.upsert_each`: `apply`, and a reconcile's
    batch that is not a bulk load's): FTS5 flushes the word index at every savepoint, a segment
    each, and with a cold load's `LOAD_MERGE` still set (until the merge job, after the query
    indexes; across a restart too) nothing merges them: past its limit of segments FTS5 refuses
    the write ("database or disk is full"). A rename rewriting 1,500 notes right after a cold
    load failed its whole index update so. FTS5's defaults come back first (whether they did);
    the merge job then compacts the index as after any write. Nothing while a load defers the
    word index (its triggers are dropped: these writes do not touch it)."""
    if conn.execute("SELECT 1 FROM fts_words_config WHERE k = ?", (LOAD_MERGE[-1][0],)).fetchone() is None:
        return False
    marks = ",".join("?" * len(WORD_TRIGGERS))
    if conn.execute(f"SELECT 1 FROM deferred_indexes WHERE name IN ({marks})", WORD_TRIGGERS).fetchone():
        return False
    _merge_settings(conn, DEFAULT_MERGE)
    return True


def _merge_settings(conn: Any, settings: tuple[tuple[str, int], ...]) -> None:
    """Set FTS5's merge options of `fts_words` (persistent: rows of `fts_words_config`, read by
    every connection). The defaults are set through FTS5 too (its cached options and its cookie
    for the other connections follow), then their rows deleted: the table holds only what it
    held before the load (FTS5 reads a missing option as its default)."""
    for key, value in settings:
        conn.execute("INSERT INTO fts_words(fts_words, rank) VALUES (?, ?)", (key, value))
    if settings == DEFAULT_MERGE:
        marks = ",".join("?" * len(settings))
        conn.execute(f"DELETE FROM fts_words_config WHERE k IN ({marks})", [key for key, _ in settings])


def _create(conn: Any, name: str, sql: str) -> None:
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (name,)).fetchone() is None:
        conn.execute(sql)


def build_next_index(conn: Any) -> str | None:
    """Build the first query index still deferred (`DEFERRABLE_INDEXES`' order) and strike it
    from `deferred_indexes` in the same transaction: a process that dies here leaves it, and
    only it and those after it, to the next start. None when none is left; when the word index
    is still deferred too (a load that did not end), everything is restored at once instead."""
    waiting = dict(conn.execute("SELECT name, sql FROM deferred_indexes").fetchall())
    if any(name in WORD_TRIGGERS for name in waiting):
        restore_indexes(conn)
        return None
    order = {name: n for n, name in enumerate(DEFERRABLE_INDEXES)}
    if not waiting:
        return None
    name = min(waiting, key=lambda n: (order.get(n, len(order)), n))
    set_cache(conn, BULK_CACHE_KIB)  # the sort of a 100k load's links spills less
    try:
        _create(conn, name, waiting[name])
        conn.execute("DELETE FROM deferred_indexes WHERE name = ?", (name,))
    finally:
        set_cache(conn, CACHE_KIB)
    return str(name)


class QueryIndexes:
    """The query indexes of a cold load, built after the index is ready, one writer transaction
    each (the longest, `links_by_target` at 100k notes, ~1.2 s of the writer; writes queue
    between them, not behind all thirteen, ~3 s).

    Why no answer is wrong meanwhile: these are secondary indexes of tables that hold every row
    already; SQLite answers the same statements without them, by scanning (slower: a hub
    note's backlinks, a tag's notes), and the one statement that names an index
    (`unresolved.py`) falls back to a scan while it is missing. A note's update deletes its old
    rows by note id: the by-note indexes come first. A process that dies before they are all
    built leaves the rest in `deferred_indexes`: the next start's reconcile builds them before it
    writes (`restore_indexes`). `then` (the trigram rebuild, which holds the writer ~25 s) is
    called after the last one, so it never delays them."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.task: asyncio.Task[None] | None = None
        self.built = 0  # indexes built (for tests and reports)
        self._then: list[Callable[[], None]] = []

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(self) -> None:
        if not self.running:
            self.task = asyncio.create_task(self._run(), name="query-indexes")

    def then(self, follow: Callable[[], None]) -> None:
        """Call `follow` once the indexes are built (at once when no build is under way)."""
        if self.running:
            self._then.append(follow)
        else:
            follow()

    async def settled(self) -> None:
        while self.task is not None and not self.task.done():
            await asyncio.wait({self.task})

    async def cancel(self) -> None:
        self._then.clear()
        if self.task is not None:
            await cancel_and_wait(self.task)

    async def _run(self) -> None:
        try:
            while await self.db.run_write(build_next_index) is not None:
                self.built += 1
        except Exception:
            log.exception("building the deferred query indexes failed; queries scan, the next start builds them")
        follows, self._then = self._then, []
        for follow in follows:
            follow()


def _checkpoint(path: Path) -> None:
    """Copy the WAL's pages into the database from a connection of its own: a PASSIVE checkpoint
    waits for no reader or writer, so writes and queries go on meanwhile."""
    conn = connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
    finally:
        conn.close()


async def checkpoint_after_load(db: Database) -> None:
    """After a bulk load that ended with `checkpoint_later`: checkpoint its WAL beside the writer,
    then give the writer its auto-checkpoints back, then checkpoint once more (what the writer
    committed meanwhile, a trigram rebuild's pages say, is then not left to the next write's
    commit). A process that dies first loses nothing: the WAL is the database's until checkpointed."""
    try:
        await asyncio.to_thread(_checkpoint, db.path)
    finally:
        await asyncio.shield(db.run_write(lambda c: c.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")))
    with contextlib.suppress(Exception):
        await asyncio.to_thread(_checkpoint, db.path)


def rebuild_trigram(conn: Any) -> None:
    """Rebuild the deferred trigram index in one pass and mark it complete."""
    set_cache(conn, BULK_CACHE_KIB)
    try:
        conn.execute("INSERT INTO fts_trigram(fts_trigram) VALUES ('rebuild')")
        conn.execute("UPDATE fts_control SET trigram_deferred = 0")
    finally:
        set_cache(conn, CACHE_KIB)
