"""Read-only link-graph queries over the index tables (`notes`, `links`; migrations/0002_index.sql).

A link written in a frontmatter property (`up: "[[Hub]]"`) is a link like the body's, as in
Obsidian; its `property` names the key. Every query is scoped by `vault_id` and returns plain
tuples/dataclasses; pagination and line text are the tools' job. Lines are the index's 0-based
line numbers. Edges count only resolved links (`target_path` not NULL) between different notes,
so a note that only links to itself, or only to missing notes, is still an orphan.

`broken` and `orphans` take the caller's read decision (`readable`, None = reads everything):
a link to a note the caller may not read is, for that caller, exactly an unresolved link — it is
broken, it links nothing, and a note whose only link partners are hidden is an orphan.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from service.gcpause import paused
from service.graph.analytics import NO_LIMIT, Limit
from service.graph.linkpath import base_name
from service.obsidian.canvas import is_canvas_path, not_canvas
from service.storage.db import Database

Direction = Literal["in", "out", "both"]
_CHECK_ROWS = 4096  # rows between two looks at a Limit's stop flag
_CHUNK = 500  # stay far below SQLite's bound-parameter limit


def alias_texts(aliases: str | None) -> list[str]:
    """A notes row's `aliases` (JSON) as an address is resolved against: the texts, numbers as text."""
    found = json.loads(aliases) if aliases and aliases != "[]" else []
    return [str(a) for a in found if isinstance(a, str | int | float)]


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    source_title: str
    line: int  # 0-based
    target_raw: str
    target_path: str | None
    target_title: str | None
    subpath: str | None
    alias: str | None
    embed: bool
    kind: str
    property: str | None = None  # the frontmatter property the link is written in; None: the body
    link_id: int = 0  # the `links` row: in a note, the order its links were read in


_EDGE_SELECT = """
SELECT s.path, s.title, l.line, l.target_raw, l.target_path, t.title,
       l.subpath, l.alias, l.embed, l.kind, l.property, l.id
FROM links l
JOIN notes s ON s.id = l.src_id
LEFT JOIN notes t ON t.vault_id = l.vault_id AND t.path = l.target_path
"""


def hide_target(edge: Edge) -> Edge:
    """The edge as a caller who may not read its target sees it: unresolved."""
    return replace(edge, target_path=None, target_title=None)


def _memo(readable: Callable[[str], bool]) -> Callable[[str], bool]:
    seen: dict[str, bool] = {}

    def ask(path: str) -> bool:
        found = seen.get(path)
        if found is None:
            found = seen[path] = readable(path)
        return found

    return ask


def _edges(rows: Iterable[Any]) -> list[Edge]:
    out: list[Edge] = []
    for r in rows:
        out.append(
            Edge(
                source=str(r[0]),
                source_title=str(r[1]),
                line=int(r[2]),
                target_raw=str(r[3]),
                target_path=None if r[4] is None else str(r[4]),
                target_title=None if r[5] is None else str(r[5]),
                subpath=None if r[6] is None else str(r[6]),
                alias=None if r[7] is None else str(r[7]),
                embed=bool(r[8]),
                kind=str(r[9]),
                property=None if r[10] is None else str(r[10]),
                link_id=int(r[11]),
            )
        )
    return out


class GraphQueries:
    """Queries for one database; each method takes the vault id."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def longer_than(self, vault_id: str, size: int) -> list[str]:
        """Notes of more than `size` bytes (the index reads a note's first characters only:
        `service.indexer.caps`, so their links past that are in no `links` row)."""
        rows = await self.db.fetchall("SELECT path FROM notes WHERE vault_id = ? AND size > ?", (vault_id, size))
        return [str(r[0]) for r in rows]

    async def note_title(self, vault_id: str, path: str) -> str | None:
        row = await self.db.fetchone("SELECT title FROM notes WHERE vault_id = ? AND path = ?", (vault_id, path))
        return None if row is None else str(row[0])

    async def titles(self, vault_id: str, paths: list[str]) -> dict[str, str]:
        def run(conn: sqlite3.Connection) -> dict[str, str]:
            out: dict[str, str] = {}
            for i in range(0, len(paths), _CHUNK):
                chunk = paths[i : i + _CHUNK]
                marks = ",".join("?" * len(chunk))
                sql = f"SELECT path, title FROM notes WHERE vault_id = ? AND path IN ({marks})"
                out.update({str(p): str(t) for p, t in conn.execute(sql, (vault_id, *chunk))})
            return out

        return await self.db.run_read(run)

    async def all_paths(self, vault_id: str) -> list[str]:
        rows = await self.db.fetchall("SELECT path FROM notes WHERE vault_id = ? ORDER BY path", (vault_id,))
        return [str(r[0]) for r in rows]

    async def note_names(self, vault_id: str, paths: Sequence[str] | None = None) -> list[tuple[str, list[str]]]:
        """(path, aliases) of every indexed note, or of those of `paths` that are indexed notes:
        what a note address is resolved against."""

        def names(rows: Iterable[tuple[Any, Any]]) -> list[tuple[str, list[str]]]:
            out: list[tuple[str, list[str]]] = []
            for path, aliases in rows:
                out.append((str(path), alias_texts(aliases)))
            return out

        def run(conn: sqlite3.Connection) -> list[tuple[str, list[str]]]:
            sql = f"SELECT path, aliases FROM notes WHERE vault_id = ? AND {not_canvas()}"  # notes only
            if paths is None:
                return names(conn.execute(sql, (vault_id,)))
            out: list[tuple[str, list[str]]] = []
            for i in range(0, len(paths), _CHUNK):
                chunk = paths[i : i + _CHUNK]
                out += names(conn.execute(f"{sql} AND path IN ({','.join('?' * len(chunk))})", (vault_id, *chunk)))
            return out

        return await (self.db.run_scan(run) if paths is None else self.db.run_read(run))  # every note's row, or a few

    async def note_titles(self, vault_id: str, limit: Limit = NO_LIMIT) -> list[tuple[str, str, list[str]]]:
        """(path, title, aliases) of every indexed Markdown note, by path: what graph analytics
        rank and what a note's text may mention (read and parsed in a reader's thread: 100k
        notes' aliases took ~0.3 s, which the event loop waited for), the collector paused;
        `Stopped` at the next few thousand rows once `limit.stop` is set (its caller is gone)."""

        def run(conn: sqlite3.Connection) -> list[tuple[str, str, list[str]]]:
            sql = f"SELECT path, title, aliases FROM notes WHERE vault_id = ? AND {not_canvas()} ORDER BY path"
            out: list[tuple[str, str, list[str]]] = []
            with paused():  # no full collection over every object while 100k rows are made
                for row, (path, title, aliases) in enumerate(conn.execute(sql, (vault_id,))):
                    if row % _CHECK_ROWS == 0:
                        limit.up()
                    out.append((str(path), str(title), alias_texts(aliases)))
            return out

        return await self.db.run_read(run)

    async def backlinks(self, vault_id: str, paths: list[str]) -> list[Edge]:
        """Links from any note to one of `paths`, by source path then line."""

        def run(conn: sqlite3.Connection) -> list[Edge]:
            out: list[Edge] = []
            for i in range(0, len(paths), _CHUNK):
                chunk = paths[i : i + _CHUNK]
                marks = ",".join("?" * len(chunk))
                sql = f"{_EDGE_SELECT} WHERE l.vault_id = ? AND l.target_path IN ({marks})"
                out.extend(_edges(conn.execute(sql, (vault_id, *chunk))))
            out.sort(key=lambda e: (e.source, e.line))
            return out

        return await self.db.run_read(run)

    async def first_backlinks(self, vault_id: str, path: str, count: int) -> list[Edge]:
        """The first `count` links to `path`, in `backlinks` order, cut in SQL: a hub note's page
        does not build every one of its backlinks first."""
        rows = await self.db.fetchall(
            f"{_EDGE_SELECT} WHERE l.vault_id = ? AND l.target_path = ? ORDER BY s.path, l.line LIMIT ?",
            (vault_id, path, count),
        )
        return _edges(rows)

    async def outlinks(self, vault_id: str, path: str) -> list[Edge]:
        rows = await self.db.fetchall(
            f"{_EDGE_SELECT} WHERE s.vault_id = ? AND s.path = ? ORDER BY l.line, l.id", (vault_id, path)
        )
        return _edges(rows)

    async def sources_of_names(self, vault_id: str, names: list[str]) -> list[str]:
        """Notes with a link whose target is one of the lower-case file `names` (any folder)."""

        def run(conn: sqlite3.Connection) -> list[str]:
            out: set[str] = set()
            for i in range(0, len(names), _CHUNK):
                chunk = names[i : i + _CHUNK]
                marks = ",".join("?" * len(chunk))
                sql = (
                    "SELECT DISTINCT s.path FROM links l JOIN notes s ON s.id = l.src_id "
                    f"JOIN notes t ON t.vault_id = l.vault_id AND t.path = l.target_path "
                    f"WHERE l.vault_id = ? AND t.name IN ({marks})"
                )
                out.update(str(r[0]) for r in conn.execute(sql, (vault_id, *chunk)))
            # Unresolved links whose name matches may start resolving after a move.
            unresolved = (
                "SELECT DISTINCT s.path, l.target_raw FROM links l JOIN notes s ON s.id = l.src_id "
                "WHERE l.vault_id = ? AND l.target_path IS NULL"
            )
            wanted = set(names)
            for src, raw in conn.execute(unresolved, (vault_id,)):
                stem = base_name(str(raw)).lower()  # in NFC, as `names` are (a macOS client's NFD link too)
                stem = stem[:-3] if stem.endswith(".md") else stem
                if stem in wanted:
                    out.add(str(src))
            return sorted(out)

        return await self.db.run_read(run)

    async def broken(self, vault_id: str, readable: Callable[[str], bool] | None = None) -> list[Edge]:
        """Unresolved links (and, for `readable`, links to notes it denies, shown unresolved), by
        source path, line and position; sources are not filtered here."""
        if readable is None:
            rows = await self.db.fetchall(
                f"{_EDGE_SELECT} WHERE l.vault_id = ? AND l.target_path IS NULL AND l.target_raw != '' "
                "ORDER BY s.path, l.line, l.id",
                (vault_id,),
            )
            return _edges(rows)
        ask = _memo(readable)

        def run(conn: sqlite3.Connection) -> list[Edge]:
            sql = f"{_EDGE_SELECT} WHERE l.vault_id = ? AND l.target_raw != '' ORDER BY s.path, l.line, l.id"
            out: list[Edge] = []
            for edge in _edges(conn.execute(sql, (vault_id,))):
                if edge.target_path is None:
                    out.append(edge)
                elif edge.target_path != edge.source and not ask(edge.target_path):
                    out.append(hide_target(edge))
            return out

        return await self.db.run_read(run)

    async def orphans(self, vault_id: str, readable: Callable[[str], bool] | None = None) -> list[tuple[str, str]]:
        """(path, title) of notes with no resolved link to or from another note; with `readable`,
        over the notes it admits and the links between them only."""
        if readable is None:
            rows = await self.db.fetchall(
                f"""
                SELECT n.path, n.title FROM notes n
                WHERE n.vault_id = ? AND {not_canvas("n.path")}
                  AND NOT EXISTS (SELECT 1 FROM links l WHERE l.src_id = n.id
                                  AND l.target_path IS NOT NULL AND l.target_path != n.path)
                  AND NOT EXISTS (SELECT 1 FROM links l WHERE l.vault_id = n.vault_id
                                  AND l.target_path = n.path AND l.src_id != n.id)
                ORDER BY n.path
                """,
                (vault_id,),
            )
            return [(str(r[0]), str(r[1])) for r in rows]
        ask = _memo(readable)

        def run(conn: sqlite3.Connection) -> list[tuple[str, str]]:
            notes = [
                (str(p), str(t))
                for p, t in conn.execute("SELECT path, title FROM notes WHERE vault_id = ? ORDER BY path", (vault_id,))
                if ask(str(p)) and not is_canvas_path(str(p))
            ]
            linked: set[str] = set()
            edges = (
                "SELECT DISTINCT s.path, l.target_path FROM links l JOIN notes s ON s.id = l.src_id "
                "WHERE l.vault_id = ? AND l.target_path IS NOT NULL AND l.target_path != s.path"
            )
            for src, dst in conn.execute(edges, (vault_id,)):
                if ask(str(src)) and ask(str(dst)):  # a link to or from a hidden note counts as absent
                    linked.update((str(src), str(dst)))
            return [(p, t) for p, t in notes if p not in linked]

        return await self.db.run_read(run)

    async def neighbors_of(self, vault_id: str, paths: list[str], direction: Direction) -> list[tuple[str, str, str]]:
        """(from, to, 'out'|'in') edges between `paths` and their direct neighbours."""

        def run(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
            out: list[tuple[str, str, str]] = []
            for i in range(0, len(paths), _CHUNK):
                chunk = paths[i : i + _CHUNK]
                marks = ",".join("?" * len(chunk))
                if direction in ("out", "both"):
                    sql = (
                        "SELECT DISTINCT s.path, l.target_path FROM links l JOIN notes s ON s.id = l.src_id "
                        f"WHERE l.vault_id = ? AND s.path IN ({marks}) AND l.target_path IS NOT NULL "
                        "AND l.target_path != s.path"
                    )
                    out.extend((str(a), str(b), "out") for a, b in conn.execute(sql, (vault_id, *chunk)))
                if direction in ("in", "both"):
                    sql = (
                        "SELECT DISTINCT l.target_path, s.path FROM links l JOIN notes s ON s.id = l.src_id "
                        f"WHERE l.vault_id = ? AND l.target_path IN ({marks}) AND l.target_path != s.path"
                    )
                    out.extend((str(a), str(b), "in") for a, b in conn.execute(sql, (vault_id, *chunk)))
            out.sort()
            return out

        return await self.db.run_read(run)

    async def notes_with_tag(self, vault_id: str, tag: str) -> list[str]:
        """Notes carrying `tag` or a tag nested under it (frontmatter or inline), by path."""
        low = tag.lower()
        rows = await self.db.fetchall(
            "SELECT DISTINCT n.path FROM note_tags t JOIN notes n ON n.id = t.note_id "
            "WHERE t.vault_id = ? AND (t.tag_lower = ? OR substr(t.tag_lower, 1, ?) = ?) ORDER BY n.path",
            (vault_id, low, len(low) + 1, low + "/"),
        )
        return [str(r[0]) for r in rows]
