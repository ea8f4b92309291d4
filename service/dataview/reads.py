"""What a Dataview page reads from the index when a query touches it, not kept in memory.

The page image (`service.dataview.pages`) keeps what WHERE, SORT and GROUP BY read on every
page: the typed fields and the cheap `file` facts. A page's list items and tasks, its
frontmatter as written, its outgoing links and its incoming links are read here, on access, by
the note's path: at 10^5 notes, holding them decoded for every page took more than a gigabyte.

`IndexReader` owns one read-only connection of its own to the index file (a query's rows may
be rendered on another reader thread than the one that built the pages), made by the index's
SQLite library (`service.storage.driver`), opened on first use,
used under a lock and closed with the reader. An index without a file (`:memory:`) is read
through the connection the pages were built with. `Links` is a vault's pages' way to it (and to
the newest page set, across rebuilds). Reads only the tables `notes`, `links` and
`dataview_facts`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import weakref
from typing import Any, Protocol

from service.dataview.fields import decode
from service.dataview.values import Link
from service.obsidian.canvas import not_canvas
from service.storage.driver import database_file, read_only

# By path (a page keeps no note id: 4 MB at 10^5 notes), through the index of the vault's paths.
_PROPS = "SELECT properties FROM notes WHERE vault_id = ? AND path = ?"
_ITEMS = "SELECT d.facts FROM dataview_facts d JOIN notes n ON n.id = d.note_id WHERE n.vault_id = ? AND n.path = ?"
_OUTLINKS = (
    "SELECT l.target_path, l.target_raw, l.subpath, l.alias, l.embed FROM links l JOIN notes n ON n.id = l.src_id"
    " WHERE n.vault_id = ? AND n.path = ? ORDER BY l.id"
)
_INLINKS = (
    "SELECT DISTINCT n.path FROM links l JOIN notes n ON n.id = l.src_id"
    f" WHERE l.vault_id = ? AND l.target_path = ? AND n.vault_id = ? AND {not_canvas('n.path')}"
)

_WRITTEN = (
    "SELECT DISTINCT n.path FROM links l JOIN notes n ON n.id = l.src_id WHERE l.vault_id = ? AND l.target_raw = ?"
    f" AND l.target_path {{}} AND n.vault_id = ? AND {not_canvas('n.path')}"
)
_UNRESOLVED = _WRITTEN.format("IS NULL")  # index links_unresolved
_WRITTEN_TO = _WRITTEN.format("= ?")  # index links_by_target


class IndexReader:
    """Point reads of one vault's page facts, safe from any thread."""

    def __init__(self, conn: sqlite3.Connection, vault_id: str) -> None:
        self.vault_id = vault_id
        self._file = database_file(conn)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None if self._file else conn
        self._own: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = read_only(self._file)  # the index's own SQLite library (service.storage.driver)
            weakref.finalize(self, conn.close)
            self._conn = self._own = conn
        return self._conn

    def _rows(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        with self._lock:
            return self._connection().execute(sql, params).fetchall()

    def props(self, path: str) -> dict[str, Any]:
        """The note's frontmatter as the index holds it (JSON-decoded, untyped)."""
        rows = self._rows(_PROPS, (self.vault_id, path))
        raw = rows[0][0] if rows else None
        return dict(json.loads(raw)) if raw else {}

    def items(self, path: str) -> list[list[Any]]:
        """The note's list items as `service.dataview.fields.extract` stored them."""
        rows = self._rows(_ITEMS, (self.vault_id, path))
        return decode(rows[0][0] if rows else None)[1]

    def outlinks(self, path: str) -> list[tuple[Any, ...]]:
        """(resolved path or None, target as written, subpath, alias, embed) in the note's order."""
        return [tuple(r) for r in self._rows(_OUTLINKS, (self.vault_id, path))]

    def inlinks(self, path: str) -> list[str]:
        """The notes (no canvas) with a link resolving to `path`, sorted."""
        return sorted(str(r[0]) for r in self._rows(_INLINKS, (self.vault_id, path, self.vault_id)))

    def written(self, raw: str, target: str | None = None) -> list[str]:
        """The notes (no canvas) with a link written `raw` that resolves to no note, or to `target`."""
        if target is None:
            return [str(r[0]) for r in self._rows(_UNRESOLVED, (self.vault_id, raw, self.vault_id))]
        return [str(r[0]) for r in self._rows(_WRITTEN_TO, (self.vault_id, raw, target, self.vault_id))]

    def close(self) -> None:
        with self._lock:
            if self._own is not None:
                self._own.close()
                self._own = self._conn = None


class Resolver(Protocol):
    """The page set (`pages.PageSet`) whose names resolve links in values."""

    def resolve_value(self, value: Any, source: str | None = None) -> Any: ...


class Links:
    """What a page reads from the newest page set and the index, not from the set it was built
    with (pages are kept across rebuilds): incoming links, outgoing links, list items, the
    frontmatter as written, and the set that resolves its list items' links. One per vault,
    its `current` swapped on every rebuild, so a kept page holds no reference to an older set."""

    def __init__(self, reader: IndexReader) -> None:
        self.reader = reader
        self.current: Resolver | None = None  # the newest `pages.PageSet`

    def of(self, path: str) -> list[Link]:
        return [Link(p) for p in self.reader.inlinks(path)]

    def outlinks(self, path: str) -> list[tuple[Any, ...]]:
        return self.reader.outlinks(path)

    def items(self, path: str) -> list[list[Any]]:
        return self.reader.items(path)

    def props(self, path: str) -> dict[str, Any]:
        return self.reader.props(path)

    def resolve_value(self, value: Any, source: str | None = None) -> Any:
        return self.current.resolve_value(value, source) if self.current is not None else value
