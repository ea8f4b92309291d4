"""Dataview pages built from the index, cached per vault until the index changes.

A page's row holds its frontmatter (strings typed as links, dates, durations), its inline
fields (a key written twice becomes a list; each key also under its simplified name) and
`file` with the implicit fields (name, folder, path, ext, link, size, ctime, cday, mtime, mday,
tags, etags, inlinks, outlinks, aliases, tasks, lists, frontmatter, day; `items.FileFields`).
Reads the index tables `notes`, `links` and `dataview_facts`; never the vault files.

`PageCache` rebuilds a vault's set when the index's signature (note count, newest index time
and mtime, id sum) changes; a note whose content hash is unchanged keeps its parsed fields
unless notes were added or removed (a link in a field may then resolve elsewhere), so an edit
costs one note's parse plus the cheap per-page `file` objects. `View` is one caller's window on
the set: a note the caller may not read is absent from it and from every `file.inlinks`, and
every link value that names a file the caller may not read (`file.outlinks`, link fields,
list items and tasks, links written in the query) shows the target as the note wrote it, as an
unresolved link does — never the path it resolves to (get_outlinks and Bases do the same).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from service.dataview.fields import decode
from service.dataview.items import FileFields, ItemCache, all_tags, put
from service.dataview.values import Link, from_frontmatter, parse_date, parse_inline_value
from service.gcpause import paused
from service.obsidian.canvas import not_canvas

_DAY_IN_NAME = re.compile(r"(\d{4})-?(\d{2})-?(\d{2})")


@dataclass(slots=True)
class Page:
    path: str
    row: dict[str, Any]
    outlinks: list[str]  # resolved target paths, in order
    tags: frozenset[str]  # lower-case, parents included, without '#'
    field_links: bool = True  # whether a field (not `file`) holds a link: a restricted view cuts it


class Links:
    """What pages kept across rebuilds must read from the newest page set, not the one they were
    built with: the vault's incoming links (target path -> sorted source paths) for their
    `file.inlinks`, and the set that resolves their list items' links. Swapped on every rebuild,
    so a kept page holds no reference to an older set (which would keep every older set, and the
    old versions of edited notes, alive)."""

    def __init__(self) -> None:
        self.inlinks: dict[str, list[str]] = {}
        self.current: PageSet | None = None

    def of(self, path: str) -> list[Link]:
        return [Link(p) for p in self.inlinks.get(path, ())]

    def resolve_value(self, value: Any) -> Any:
        return self.current.resolve_value(value) if self.current is not None else value


class PageSet:
    def __init__(self, paths: list[str]) -> None:
        self.pages: dict[str, Page] = {}
        self.inlinks: dict[str, list[str]] = {}
        self.by_name: dict[str, list[str]] = {}
        self._paths = set(paths)
        self.order = sorted(paths)
        self.ordered_rows: list[dict[str, Any]] | None = None  # the rows of `order`, built on first use
        for path in sorted(paths, key=lambda p: (p.count("/"), p)):
            self.by_name.setdefault(path.rsplit("/", 1)[-1].removesuffix(".md").lower(), []).append(path)

    def resolve_path(self, target: str) -> str | None:
        target = target.strip()
        if not target:
            return None
        for candidate in (target, target + ".md"):
            if candidate in self._paths:
                return candidate
        found = self.by_name.get(target.rsplit("/", 1)[-1].removesuffix(".md").lower(), [])
        if len(found) == 1 and "/" not in target:
            return found[0]
        suffix = "/" + target.lower().removesuffix(".md") + ".md"
        return next((p for p in found if ("/" + p.lower()).endswith(suffix)), None)

    def resolve(self, link: Link) -> Link:
        path = self.resolve_path(link.path)
        if path and path != link.path:
            return Link(path, link.display, link.embed, link.subpath, written=link.path)
        return link

    def resolve_value(self, value: Any) -> Any:
        if isinstance(value, Link):
            return self.resolve(value)
        if isinstance(value, list):
            return [self.resolve_value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.resolve_value(v) for k, v in value.items()}
        return value


def _stamp(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds).replace(microsecond=0)


def _page(record: tuple[Any, ...], links: list[tuple[Any, ...]], pages: PageSet, holder: Links) -> Page:
    path, folder, aliases, tags_json, mtime, ctime, size, props_json, facts = record
    props = json.loads(props_json or "{}")
    fields, items = decode(facts)
    row: dict[str, Any] = {}
    multi: set[str] = set()
    for key, value in props.items():
        put(row, str(key), pages.resolve_value(from_frontmatter(value)), False, multi)
    for key, raw, _line in fields:
        put(row, key, pages.resolve_value(parse_inline_value(raw)), True, multi)
    tags = json.loads(tags_json or "[]")
    name = path.rsplit("/", 1)[-1].removesuffix(".md")
    day = None
    m = _DAY_IN_NAME.search(name)
    if m is not None:
        day = parse_date(f"{m.group(1)}-{m.group(2)}-{m.group(3)}")
    if day is None and isinstance(row.get("date"), dt.datetime):
        day = row["date"]
    mtime_d, ctime_d = _stamp(mtime), _stamp(ctime or mtime)
    file_tags = all_tags(tags)
    data = {
        "name": name, "folder": folder, "path": path, "ext": path.rsplit(".", 1)[-1], "link": Link(path),
        "size": size, "ctime": ctime_d, "cday": ctime_d.replace(hour=0, minute=0, second=0),
        "mtime": mtime_d, "mday": mtime_d.replace(hour=0, minute=0, second=0),
        "tags": file_tags, "etags": ["#" + t for t in tags],
        "outlinks": [Link(target or raw, alias, bool(embed), sub, raw) for target, raw, sub, alias, embed in links],
        "aliases": json.loads(aliases or "[]"), "frontmatter": props, "day": day, "starred": False,
    }  # fmt: skip
    items_cache = ItemCache(path, items, holder.resolve_value)
    row["file"] = FileFields(data, items_cache, lambda: holder.of(path))
    field_links = any(_holds_link(v) for k, v in row.items() if k != "file")
    return Page(path, row, [t for t, *_ in links if t], frozenset(t.lower()[1:] for t in file_tags), field_links)


def _holds_link(value: Any) -> bool:
    if isinstance(value, Link):
        return True
    if isinstance(value, list):
        return any(_holds_link(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_link(v) for v in value.values())
    return False


@dataclass(slots=True)
class Built:
    """A vault's page set and what the next rebuild may reuse."""

    pages: PageSet
    versions: dict[str, tuple[Any, ...]]  # path -> (etag, mtime, ctime, size) of the page built
    links: Links


# Dataview's pages are Markdown files: a canvas row (indexed for search and backlinks) is no page.
_NOTES = (
    f"SELECT id, path, etag, mtime, ctime, size, folder, aliases, tags FROM notes WHERE vault_id = ? AND {not_canvas()}"
)
_CONTENT = "SELECT n.id, n.properties, d.facts FROM notes n LEFT JOIN dataview_facts d ON d.note_id = n.id"
_OUTLINKS = "SELECT src_id, target_path, target_raw, subpath, alias, embed FROM links"


def _chunked(conn: sqlite3.Connection, sql: str, ids: list[int], column: str) -> list[Any]:
    rows: list[Any] = []
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        rows += conn.execute(f"{sql} WHERE {column} IN ({','.join('?' * len(chunk))})", chunk).fetchall()
    return rows


def load(conn: sqlite3.Connection, vault_id: str, previous: Built | None = None) -> Built:
    """The vault's pages. Pages of `previous` are kept where the note is unchanged (same etag,
    times and size) and no note was added or removed (names decide where links resolve)."""
    records = conn.execute(_NOTES, (vault_id,)).fetchall()
    paths = {int(r[0]): str(r[1]) for r in records}
    pages = PageSet(list(paths.values()))
    holder = previous.links if previous is not None else Links()
    same_names = (
        previous is not None
        and len(previous.versions) == len(paths)
        and all(p in previous.versions for p in paths.values())
    )
    versions = {str(r[1]): tuple(r[2:6]) for r in records}
    keep = {p for p, v in versions.items() if same_names and previous is not None and previous.versions[p] == v}
    stale = [nid for nid, p in paths.items() if p not in keep]
    whole = len(stale) > len(records) // 2
    content = {
        int(r[0]): (r[1], r[2])
        for r in (
            conn.execute(_CONTENT + " WHERE n.vault_id = ?", (vault_id,)).fetchall()
            if whole
            else _chunked(conn, _CONTENT, stale, "n.id")
        )
    }
    out: dict[int, list[tuple[Any, ...]]] = {}
    link_rows = (
        conn.execute(_OUTLINKS + " WHERE vault_id = ? ORDER BY id", (vault_id,)).fetchall()
        if whole
        else sorted(_chunked(conn, _OUTLINKS, stale, "src_id"), key=lambda r: r[0])
    )
    for src, target, raw, sub, alias, embed in link_rows:
        out.setdefault(src, []).append((target, raw, sub, alias, embed))
    incoming: dict[str, dict[str, None]] = {}
    for src, target in conn.execute(
        "SELECT src_id, target_path FROM links WHERE vault_id = ? AND target_path IS NOT NULL", (vault_id,)
    ):
        if src in paths:
            incoming.setdefault(target, {})[paths[src]] = None
    for nid, path, _etag, mtime, ctime, size, folder, aliases, tags in records:
        if path in keep and previous is not None:
            pages.pages[path] = previous.pages.pages[path]
            continue
        props, facts = content.get(int(nid), (None, None))
        record = (path, folder, aliases, tags, mtime, ctime, size, props, facts)
        pages.pages[path] = _page(record, out.get(int(nid), []), pages, holder)
    pages.inlinks = {target: sorted(sources) for target, sources in incoming.items()}
    holder.inlinks = pages.inlinks
    holder.current = pages
    return Built(pages, versions, holder)


_SIGNATURE = "SELECT count(*), max(indexed_at), max(mtime), total(id) FROM notes WHERE vault_id = ?"


class PageCache:
    """One PageSet per index database and vault, rebuilt when the index signature changes
    (thread-safe; a database that is gone takes its entries with it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sets: weakref.WeakKeyDictionary[object, dict[str, tuple[Any, Built]]] = weakref.WeakKeyDictionary()

    def has(self, owner: object, vault_id: str) -> bool:
        """Whether the vault's pages were built (by a query or a refresh) and are kept."""
        with self._lock:
            return vault_id in self._sets.get(owner, {})

    def get(self, owner: object, conn: sqlite3.Connection, vault_id: str, version: int | None = None) -> PageSet:
        """The vault's pages. `version` is the indexer's generation, read before this call (every
        index write bumps it); without one, a signature of the notes table is read instead."""
        signature = (
            ("generation", version) if version is not None else tuple(conn.execute(_SIGNATURE, (vault_id,)).fetchone())
        )
        with self._lock:
            sets = self._sets.setdefault(owner, {})
            cached = sets.get(vault_id)
            if cached is not None and cached[0] == signature:
                return cached[1].pages
            with paused():  # building ~10^6 small objects: generational collections only cost time here
                built = load(conn, vault_id, cached[1] if cached is not None else None)
            sets[vault_id] = (signature, built)
            return built.pages


class View:
    """The pages one caller may read, with links to unreadable notes removed."""

    def __init__(self, pages: PageSet, can_read: Callable[[str], bool], everything: bool) -> None:
        self.set = pages
        self.can_read = can_read
        self.everything = everything
        self._rows: dict[str, Mapping[str, Any]] = {}

    def paths(self) -> list[str]:
        if self.everything:
            return self.set.order
        return [p for p in self.set.order if self.can_read(p)]

    def rows(self, paths: list[str]) -> list[Mapping[str, Any]]:
        """The rows of `paths` (readable ones only), in that order."""
        if self.everything and paths is self.set.order:
            if self.set.ordered_rows is None:
                self.set.ordered_rows = [self.set.pages[p].row for p in paths]
            return list(self.set.ordered_rows)
        return [r for r in map(self.row, paths) if r is not None]

    def row(self, path: str) -> Mapping[str, Any] | None:
        page = self.set.pages.get(path)
        if page is None or not (self.everything or self.can_read(path)):
            return None
        if self.everything:
            return page.row
        cached = self._rows.get(path)
        if cached is None:
            file: FileFields = page.row["file"]
            readable = file.replace(
                inlinks=[x for x in file["inlinks"] if self.can_read(x.path)],
                outlinks=self.cut(file["outlinks"]),
            ).cut_with(self.cut)
            fields = {k: self.cut(v) for k, v in page.row.items()} if page.field_links else page.row
            cached = self._rows[path] = {**fields, "file": readable}
        return cached

    def cut(self, value: Any) -> Any:
        """`value` with every link to a file the caller may not read shown as written (unresolved)."""
        if isinstance(value, Link):
            if self.everything or self.can_read(value.path):
                return value
            written = value.written if value.written is not None else value.path.rsplit("/", 1)[-1]
            return Link(written.strip(), value.display, value.embed, value.subpath)
        if isinstance(value, list):
            return [self.cut(v) for v in value]
        if type(value) is dict:
            return {k: self.cut(v) for k, v in value.items()}
        return value

    def row_of(self, link: Link) -> Mapping[str, Any] | None:
        path = self.set.resolve_path(link.path)
        return self.row(path) if path else None

    def resolve(self, link: Link) -> Link:
        resolved = self.set.resolve(link)
        return resolved if self.everything else self.cut(resolved)
