"""The frontmatter texts of a Bases snapshot's notes, read from the index when a query needs them.

A snapshot keeps no long frontmatter text (at 10^5 notes the texts were ~17 MB of the image,
every one of them held though a query reads a handful of keys): a record holds the table
instead (`snapshot.Record`), and a property's column is converted from one statement over
the notes that may hold its key (`having`); a query that needs one record's frontmatter (its
keys, a property of a record of another snapshot) reads that note's text (`text`).

`IndexTexts` owns one read-only connection of its own to the index file (a query runs in a
worker thread, not on the reader that built the snapshot), made by the index's SQLite library
(`service.storage.driver`), opened on first use, used under a lock and closed with the
table; an index without a file (`:memory:`) is read through the connection the snapshot was
built with. One table serves every snapshot of a vault made incrementally from the last one
(records kept across rebuilds keep pointing at it). Reads only the table `notes`.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Iterator
from typing import Any

from service.storage.driver import database_file, read_only

_TEXT = "SELECT properties FROM notes WHERE vault_id = ? AND path = ?"
# A key is written in the text as `"key"` unless JSON escaped something (then any text may hold
# it). `+vault_id`: a scan of the table, not 10^5 look-ups through an index of the vault's notes.
_HAVING = (
    "SELECT path, properties FROM notes"
    " WHERE +vault_id = ? AND (instr(properties, ?) > 0 OR instr(properties, '\\') > 0)"
)


class IndexTexts:
    """Point and column reads of one vault's frontmatter texts, safe from any thread."""

    __slots__ = ("vault_id", "_file", "_lock", "_conn", "__weakref__")

    def __init__(self, conn: sqlite3.Connection, vault_id: str) -> None:
        self.vault_id = vault_id
        self._file = database_file(conn)
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None if self._file else conn

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = read_only(self._file)  # the index's own SQLite library (service.storage.driver)
            weakref.finalize(self, conn.close)
            self._conn = conn
        return self._conn

    def text(self, path: str) -> str:
        """The note's frontmatter as the index holds it (JSON text; '{}' for none or a gone note)."""
        with self._lock:
            row = self._connection().execute(_TEXT, (self.vault_id, path)).fetchone()
        return str(row[0]) if row is not None and row[0] else "{}"

    def having(self, key: str) -> Iterator[tuple[str, str]]:
        """(path, JSON text) of every note whose text may hold `key`, one row at a time (no list
        of every text at once: the memory would be scattered among the values converted)."""
        with self._lock:
            cursor: Any = self._connection().execute(_HAVING, (self.vault_id, f'"{key}"'))
            for path, text in cursor:
                yield str(path), str(text)
