"""Index counts for status reports (`index_status`, `list_vaults`, metrics).

Guarantee: the counts are cached per indexer generation; every index write bumps it, so polling
index_status costs one query per change instead of ~20 ms per call on 10k notes. While a bulk
load runs (`moving`), every batch is a change: the counts are then read at most once per
`MOVING_MAX_AGE_S` (each read scans five tables, and its pages filled a reader's cache, ~10 MB of
a cold build's peak RSS), and reused for at least `COST_REUSE` times what the last read took:
a cold load drops the tables' query indexes, so near the end of 100k notes a read scans every
row (~0.5-1.5 s of a core), and a client polling each second took ~20 % of the server's CPU of
the load. Once the load ends they are exact again.

Kept in step with the writes (`kept=True`, the indexer's): reading the five tables again after
every change cost ~90-130 ms at 100k notes (the headings' join alone ~65 ms), and every change
seen by a client polling `index_status` paid it before the answer. Instead, an incremental write
(`apply.py`) counts the rows of the notes it touches before and after its change, in its own
transaction on the writer (`before` / `after`), and adds the difference to counts held in step
with the writer; the unresolved links and the distinct tags, which a write changes outside its
own notes (link resolution, a tag another note still holds), are counted again there from their
indexes (~1 ms at 100k). A reconcile's batches and its finish (the notes gone from disk) are
carried the same way; a bulk load's batches, a write of more than `KEPT_MAX_PATHS` notes and a
write that failed `void` the held counts, and the next read counts everything once, on the
writer, so it sees exactly the writes before it (each reconcile did, ~110 ms at 100k notes).
Counts reach readers only once their write committed (`committed`), never those of a write still
in its transaction, and never after a later `void`.

Tasks are held per status character (keys `status <char>`); which of them are open is the
vault's Tasks plugin statuses' to say when they are reported (`reported`: `open_tasks`, as
`service.obsidian.task_status` defines it), so editing a custom status changes the count at
once, with no recount.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from service.obsidian.canvas import not_canvas
from service.obsidian.task_status import StatusTable, open_count
from service.storage.db import Database

_COUNTS = (
    f"SELECT (SELECT COUNT(*) FROM notes WHERE vault_id = ?1 AND {not_canvas()}),"
    " (SELECT COUNT(*) FROM links WHERE vault_id = ?1),"
    " (SELECT COUNT(*) FROM links WHERE vault_id = ?1 AND target_path IS NULL),"
    " (SELECT COUNT(DISTINCT tag_lower) FROM note_tags WHERE vault_id = ?1),"
    " (SELECT COUNT(*) FROM tasks WHERE vault_id = ?1),"
    " (SELECT COUNT(*) FROM headings h JOIN notes n ON n.id = h.note_id WHERE n.vault_id = ?1)"
)
# Tasks per status character: which are open is the vault's Tasks settings' to say, read with the counts.
_STATUSES = "SELECT status, COUNT(*) FROM tasks WHERE vault_id = ? GROUP BY status"
_NOTES = "WITH t AS (SELECT id, path FROM notes WHERE vault_id = ? AND path IN ({marks}))"
# The rows of the notes a write touches: (notes, links, tasks, headings), then their tasks per status.
_TOUCHED = (
    _NOTES + f" SELECT (SELECT COUNT(*) FROM t WHERE {not_canvas()}),"
    " (SELECT COUNT(*) FROM links WHERE src_id IN (SELECT id FROM t)),"
    " (SELECT COUNT(*) FROM tasks WHERE note_id IN (SELECT id FROM t)),"
    " (SELECT COUNT(*) FROM headings WHERE note_id IN (SELECT id FROM t))"
)
_TOUCHED_STATUSES = _NOTES + " SELECT status, COUNT(*) FROM tasks WHERE note_id IN (SELECT id FROM t) GROUP BY status"
_TOUCHED_KEYS = ("notes", "links", "tasks", "headings")
STATUS = "status "  # held counts' key prefix: tasks of one status character ('status x')
# Changed outside the notes a write touches; each counted from its own index.
_SHARED = (
    "SELECT (SELECT COUNT(*) FROM links WHERE vault_id = ?1 AND target_path IS NULL),"
    " (SELECT COUNT(DISTINCT tag_lower) FROM note_tags WHERE vault_id = ?1)"
)
KEPT_MAX_PATHS = 500  # a write touching more notes voids the held counts (one full count is cheaper)
PAGE = 400  # paths per statement (SQLite's variable limit)
Token = tuple[int, dict[str, int]]  # (writer step, counts after it)
MOVING_MAX_AGE_S = 1.0
COST_REUSE = 20  # while moving: a read costs at most ~5 % of a core, however often clients ask


class Counts:
    """Row counts of one vault's index, remembered for the generation they were read at."""

    def __init__(self, db: Database, vault_id: str, *, kept: bool = False) -> None:
        """`kept`: the writes keep the counts in step (module docstring); reads count everything
        only after a `void`."""
        self.db = db
        self.vault_id = vault_id
        self.kept = kept
        self.full_counts = 0  # every table counted (a read, or a seed on the writer)
        self._step = 0  # writer steps that changed the held counts (writer thread only)
        self._void_step = 0  # the last step that voided them
        self._held: dict[str, int] | None = None  # as of the writer's last step (writer thread)
        self._shown: Token | None = None  # committed: what readers get
        self._seeding = asyncio.Lock()
        self._cached: tuple[int, dict[str, int]] | None = None
        self._read_at = 0.0
        self._reuse_s = MOVING_MAX_AGE_S  # how long counts read while moving are reused

    async def get(self, generation: int, *, moving: bool = False) -> dict[str, int]:
        """The counts at `generation` (read by the caller before this query: a later write
        always invalidates), or, while a bulk load is `moving`, as old as the last read's cost allows
        (`MOVING_MAX_AGE_S`, or `COST_REUSE` times the last read's time when that is longer)."""
        if self.kept and not moving:
            shown = self._shown
            if shown is None:
                async with self._seeding:
                    if self._shown is None:
                        self.committed(await self.db.run_write(self._seed))
                shown = self._shown
            if shown is not None:
                return dict(shown[1])
        cached = self._cached
        if cached is not None and (
            cached[0] == generation or (moving and time.monotonic() - self._read_at < self._reuse_s)
        ):
            return dict(cached[1])
        started = time.monotonic()
        counts = _named(await self.db.fetchone(_COUNTS, (self.vault_id,)))
        counts.update(_by_status(await self.db.fetchall(_STATUSES, (self.vault_id,))))
        self.full_counts += 1
        self._cached = (generation, dict(counts))
        self._read_at = time.monotonic()
        self._reuse_s = max(MOVING_MAX_AGE_S, COST_REUSE * (self._read_at - started))
        return counts

    # -- kept in step with the writes (the writer's thread, inside its transaction) -------------

    def before(self, conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, int] | None:
        """The rows of the notes at `paths` before a write changes them; None when the held counts
        cannot be carried (none held, or too many notes: `after` then voids them)."""
        if self._held is None or len(paths) > KEPT_MAX_PATHS:
            return None
        return self._touched(conn, paths)

    def after(self, conn: sqlite3.Connection, before: dict[str, int] | None, paths: Sequence[str]) -> Token | None:
        """Carry the held counts over the write just made to the notes at `paths`; the token is
        for `committed`, once the transaction is."""
        held = self._held
        if before is None or held is None:
            self.void()
            return None
        now = self._touched(conn, paths)
        counts = dict(held)
        for key in {*now, *before}:
            counts[key] = counts.get(key, 0) + now.get(key, 0) - before.get(key, 0)
            if key.startswith(STATUS) and not counts[key]:
                del counts[key]  # no task of that status left, as a full count reads it
        row = conn.execute(_SHARED, (self.vault_id,)).fetchone()
        counts["unresolved_links"], counts["tags"] = int(row[0]), int(row[1])
        return self._hold(counts)

    def void(self) -> None:
        """A write of these tables the counts were not carried over: count everything next time."""
        self._step += 1
        self._void_step = self._step
        self._held = None
        self._shown = None

    def _seed(self, conn: sqlite3.Connection) -> Token:
        self.full_counts += 1
        return self._hold(self._all(conn))

    def _all(self, conn: sqlite3.Connection) -> dict[str, int]:
        counts = _named(conn.execute(_COUNTS, (self.vault_id,)).fetchone())
        counts.update(_by_status(conn.execute(_STATUSES, (self.vault_id,)).fetchall()))
        return counts

    def _hold(self, counts: dict[str, int]) -> Token:
        self._step += 1
        self._held = counts
        return (self._step, dict(counts))

    def _touched(self, conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, int]:
        out = dict.fromkeys(_TOUCHED_KEYS, 0)
        unique = sorted(set(paths))
        for i in range(0, len(unique), PAGE):
            part = unique[i : i + PAGE]
            sql = _TOUCHED.format(marks=",".join("?" * len(part)))
            row = conn.execute(sql, (self.vault_id, *part)).fetchone()
            for key, value in zip(_TOUCHED_KEYS, row, strict=True):
                out[key] += int(value)
            sql = _TOUCHED_STATUSES.format(marks=",".join("?" * len(part)))
            for char, n in conn.execute(sql, (self.vault_id, *part)):
                out[STATUS + str(char)] = out.get(STATUS + str(char), 0) + int(n)
        return out

    # -- the event loop, once the write committed -----------------------------------------------

    def committed(self, token: Token | None) -> None:
        """The write that made `token` committed: readers get its counts, unless a later write
        voided them or a later one already showed newer counts."""
        if token is None:
            return
        step, counts = token
        shown = self._shown
        if step > self._void_step and (shown is None or shown[0] < step):
            self._shown = (step, counts)


def _named(row: Sequence[int]) -> dict[str, int]:
    return {
        "notes": int(row[0]),
        "links": int(row[1]),
        "unresolved_links": int(row[2]),
        "tags": int(row[3]),
        "tasks": int(row[4]),
        "headings": int(row[5]),
    }


def _by_status(rows: Sequence[Any]) -> dict[str, int]:
    """(status, count) rows as held counts."""
    return {STATUS + str(char): int(n) for char, n in rows}


def reported(counts: dict[str, int], statuses: StatusTable) -> dict[str, int]:
    """The counts as `index_status` reports them: the tasks per status character folded into
    `open_tasks`, open as the vault's Tasks settings read it (`service.obsidian.task_status`)."""
    out = {k: v for k, v in counts.items() if not k.startswith(STATUS)}
    out["open_tasks"] = open_count({k[len(STATUS) :]: v for k, v in counts.items() if k.startswith(STATUS)}, statuses)
    return out
