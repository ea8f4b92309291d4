"""The link targets that may be unresolved, by the name a new note must have to take them over.

A note that appears can only resolve links naming it (`PathSet.by_name`'s rule: the link's base
name, case folded, is the file's, with or without `.md`), so a new note's index update looks
for those links among the vault's unresolved ones (`rows.resolve_links`). In SQL that was a
substring test on every unresolved link of the vault: ~31 ms per new note at 100k notes (30,593
unresolved links; 13 ms on their own index), once per note created, in its save → searchable
time. `UnresolvedTargets` holds each distinct unresolved `target_raw` under its name (19,007 at
100k notes, a few MB), so the links are then fetched by equality on their partial index.

Guarantee: every `target_raw` of an unresolved link in the index is found by its name, while
the set is held; more may be (a target resolved since, or one no link names any more): those are
looked up and found resolved, never wrong. The targets read from the index are held compactly,
as the sorted hashes of their names beside the id of one link holding each (two arrays, ~0.3 MB
at 100k notes; the strings themselves took 7 MB): a lookup reads those links' targets by id, and
a link gone or holding another target since (its note stored again, an id reused) makes the set
be read again. Links become unresolved only when stored (`add` the targets of the links an
incremental write stores, held as strings until the next read) or when resolution clears them
(`resolve_links` adds those; a reconcile's batches add theirs too); a write that does not report
its targets (a bulk load's batches) `void`s the set, and the next use reads it again from the
index (~10-50 ms at 100k notes); so does the next use after `EXTRA_MAX` names were added.

Used in the writer's thread only (inside its transactions); `void` may come from any thread.
"""

from __future__ import annotations

import bisect
import sqlite3
from array import array
from collections.abc import Iterable
from typing import Any

from service.graph.linkpath import base_name

EXTRA_MAX = 4096  # names added since the last read, beyond which the next use reads again
PAGE = 400  # ids per statement (SQLite's variable limit)
_DISTINCT = (
    "SELECT target_raw, MIN(id) FROM links INDEXED BY links_unresolved"
    " WHERE vault_id = ? AND target_path IS NULL GROUP BY target_raw"
)


_HAS_INDEX = "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'links_unresolved'"


def key(raw: str) -> str:
    """The name a file must have for the link to resolve to it (`resolve_links`' rule)."""
    return base_name(raw.strip()).lower()


class UnresolvedTargets:
    def __init__(self, vault_id: str) -> None:
        self.vault_id = vault_id
        self.reads = 0  # times the targets were read from the index
        self._held: tuple[array[int], array[int]] | None = None  # sorted name hashes, a link id each
        self._extra: dict[str, set[str]] = {}  # targets added since the read, by name

    def void(self) -> None:
        self._held = None

    def add(self, raws: Iterable[str]) -> None:
        """Targets of links just stored or just made unresolved."""
        if self._held is None:
            return
        extra = self._extra
        for raw in raws:
            extra.setdefault(key(raw), set()).add(raw)
        if len(extra) > EXTRA_MAX:
            self._held = None

    def named(self, conn: sqlite3.Connection, names: Iterable[str]) -> list[str]:
        """The targets a file with one of these names (lower case, with `.md` for notes) may
        take over."""
        wanted: set[str] = set()
        for name in names:
            wanted.add(name)
            if name.endswith(".md"):
                wanted.add(name[:-3])
        found = self._named(conn, wanted)
        if found is None:  # a held link changed since the read: read again
            self._held = None
            found = self._named(conn, wanted)
        assert found is not None  # just read: every held link is as read
        return sorted(found)

    def links(self, conn: sqlite3.Connection, unresolved_sql: str, names: Iterable[str]) -> list[tuple[Any, ...]]:
        """The rows of `unresolved_sql` (the vault's unresolved links, its one parameter the
        vault) whose target a file with one of these names may take over."""
        raws = self.named(conn, names)
        found: list[tuple[Any, ...]] = []
        for i in range(0, len(raws), PAGE):
            part = raws[i : i + PAGE]
            by_raw = f"{unresolved_sql} AND l.target_raw IN ({','.join('?' * len(part))})"
            found += conn.execute(by_raw, (self.vault_id, *part)).fetchall()
        return found

    def _named(self, conn: sqlite3.Connection, wanted: set[str]) -> set[str] | None:
        if self._held is None:
            self._read(conn)
        assert self._held is not None
        hashes, ids = self._held
        expected: dict[int, int] = {}
        for name in wanted:
            h = hash(name)
            i = bisect.bisect_left(hashes, h)
            while i < len(hashes) and hashes[i] == h:
                expected[ids[i]] = h
                i += 1
        out = {raw for name in wanted for raw in self._extra.get(name, ())}
        todo = sorted(expected)
        for i in range(0, len(todo), PAGE):
            part = todo[i : i + PAGE]
            rows = conn.execute(f"SELECT id, target_raw FROM links WHERE id IN ({','.join('?' * len(part))})", part)
            seen = 0
            for link_id, raw in rows:
                if hash(key(raw)) != expected[link_id]:
                    return None
                out.add(raw)
                seen += 1
            if seen != len(part):
                return None
        return out

    def _read(self, conn: sqlite3.Connection) -> None:
        statement = _DISTINCT
        if conn.execute(_HAS_INDEX).fetchone() is None:  # a cold load's, built after ready (`bulk.py`)
            statement = _DISTINCT.replace(" INDEXED BY links_unresolved", "")
        pairs = sorted((hash(key(raw)), link_id) for raw, link_id in conn.execute(statement, (self.vault_id,)))
        self._held = (array("q", (h for h, _ in pairs)), array("q", (i for _, i in pairs)))
        self._extra = {}
        self.reads += 1
