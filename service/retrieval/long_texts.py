"""The text of long notes, kept between searches for their snippet windows (service/retrieval/windows.py).

A page that quotes a long note read its whole body from `note_text` (a 250 KB note is ~60
overflow pages) and lowered it, to find where the query's words are: ~0.1 ms of each such note's
~0.35 ms, every time a search quoted it. The notes over `LONG_NOTE` bytes are few (73 of the
standard 10k vault, 9 MB) and the same ones come back (a long note holds most mid-frequency
words), so their (title, body, lowered body) are kept here, least recently used dropped past
`BUDGET` bytes.

Freshness: nothing here trusts a note's id or etag (an id is reused after a delete; OCR text
rewrites a body without touching its etag). Every lookup first asks its connection's `PRAGMA
data_version`, which changes when another connection has committed, and its `total_changes`
(its own writes, which data_version leaves out): any change seen by any reader (or a connection
not seen before) empties the cache and starts a new generation, and a text read under an older
generation is not kept. A search's own snapshot starts after that
check, so what it reads is never older than the generation it is stored under.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence

BUDGET = 16 * 1024 * 1024  # bytes of body and lowered body kept, all long notes of a 10k vault
_MAX_CONNECTIONS = 64  # readers remembered (a pool holds a few); past it every one counts as new

# A long note's title, body (UTF-8, as SQLite stores it) and body with ASCII letters lowered.
LongText = tuple[str, bytes, bytes]


class LongTexts:
    """Bounded, commit-invalidated store of long notes' texts, shared by the reader threads.

    Kept by (database, note id): a process can hold more than one index (tests, several cache
    folders), where the same id names different notes."""

    def __init__(self, budget: int = BUDGET) -> None:
        self._budget = budget
        self._lock = threading.Lock()
        self._texts: OrderedDict[tuple[str, int], LongText] = OrderedDict()
        self._size = 0
        self._generation = 0
        # Per connection: its database's key and the (data_version, total_changes) last seen.
        # Strong references: a connection kept here cannot be freed and its id() reused.
        self._seen: dict[sqlite3.Connection, tuple[str, tuple[int, int]]] = {}

    def _current(self, conn: sqlite3.Connection) -> tuple[int, str]:
        """The generation valid for `conn`'s next reads (a new one when it saw a change), and
        its database's key (the main file; an in-memory database is its connection's own)."""
        version = (int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)
        with self._lock:
            seen = self._seen.get(conn)
            if seen is not None and seen[1] == version:
                return self._generation, seen[0]
        key = next((str(r[2]) for r in conn.execute("PRAGMA database_list") if r[1] == "main"), "") or f"@{id(conn)}"
        with self._lock:
            if len(self._seen) >= _MAX_CONNECTIONS:
                self._seen.clear()
            self._seen[conn] = (key, version)
            self._generation += 1
            self._texts.clear()
            self._size = 0
            return self._generation, key

    def get(self, conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, LongText]:
        """The texts of notes `ids` (each in `note_text`, else left out), kept ones first."""
        generation, db = self._current(conn)
        out: dict[int, LongText] = {}
        with self._lock:
            for nid in ids:
                entry = self._texts.get((db, nid))
                if entry is not None:
                    out[nid] = entry
                    self._texts.move_to_end((db, nid))
        missing = [nid for nid in ids if nid not in out]
        if not missing:
            return out
        marks = ",".join("?" * len(missing))
        sql = f"SELECT note_id, title, CAST(body AS BLOB) FROM note_text WHERE note_id IN ({marks})"
        read: dict[int, LongText] = {}
        for nid, title, body in conn.execute(sql, missing):
            read[int(nid)] = (str(title), bytes(body), bytes(body).lower())
        with self._lock:
            if generation == self._generation:
                for nid, entry in read.items():
                    self._keep((db, nid), entry)
        return out | read

    def _keep(self, key: tuple[str, int], entry: LongText) -> None:
        cost = len(entry[1]) * 2
        if cost > self._budget:
            return
        old = self._texts.pop(key, None)
        if old is not None:
            self._size -= len(old[1]) * 2
        self._texts[key] = entry
        self._size += cost
        while self._size > self._budget:
            _, dropped = self._texts.popitem(last=False)
            self._size -= len(dropped[1]) * 2

    def clear(self) -> None:
        with self._lock:
            self._texts.clear()
            self._size = 0
            self._seen.clear()
            self._generation += 1
