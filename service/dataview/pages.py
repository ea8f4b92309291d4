"""Dataview pages built from the index, cached per vault until the index changes.

A page's row holds its frontmatter (strings typed as links, dates, durations), its inline
fields (a key written twice becomes a list; each key also under its simplified name) and
`file` with the implicit fields (name, folder, path, ext, link, size, ctime, cday, mtime, mday,
tags, etags, inlinks, outlinks, aliases, tasks, lists, frontmatter, day; `items.FileFields`).
Reads the index tables `notes`, `links` and `dataview_facts`; never the vault files.

What the set holds is sized for 10^5 notes: per page the typed fields, the few stat facts the
`file` fields are computed from on access (`Page`, which is also the page's row), and its
tags; equal texts, dates and lists of texts are one object across pages, and the lookup by
base name is two arrays (`names.Names`). Outgoing and incoming links, list items and tasks and the frontmatter
as written stay in the index and are read when a query touches them (`reads.IndexReader`).

`PageCache` drops a set no query has read for a while when asked (`release_idle`: the
query-image warm-up does, after `[search] query_images_idle_s`), and rebuilds a vault's set
when the index's signature (note count, newest index time and mtime, id sum) changes; a note
whose content hash is unchanged keeps its parsed fields unless notes were added or removed (a
link in a field may then resolve elsewhere), so an edit costs one note's parse. One caller's
window on the set is `service.dataview.view.View`.
"""

from __future__ import annotations

import bisect
import datetime as dt
import json
import re
import sqlite3
import sys
import threading
import time
import weakref
from array import array
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

from service.dataview import values
from service.dataview.items import FileFields, ItemCache, all_tags, items_of, put, same
from service.dataview.names import Names
from service.dataview.reads import IndexReader, Links
from service.dataview.rows import Row, Shapes, share
from service.dataview.values import Link, from_frontmatter, parse_date, parse_inline_value
from service.gcpause import paused
from service.obsidian.canvas import not_canvas
from service.obsidian.link_order import closeness
from service.query_images import Tags, borrowed, peer_tags, publish

# normalize.ts extractDate: a dashed date anywhere in the file's title, else eight digits
_DAY_IN_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DAY_IN_DIGITS = re.compile(r"(\d{4})(\d{2})(\d{2})")
_NO_KEYS: dict[str, int] = {}
_FILE: Any = object()  # where a page's values hold its `file`: a `PageFile` made on access
# The key of a build's `shared` table under which its tag tuples are, each keyed by itself. Keyed
# by the notes' JSON texts, the table kept ~65,000 texts alive through a 10^5-note build,
# interleaved with the pages; freed at its end, they left holes the process kept resident (~12 MB).
_TAG_SETS = object()


class Page(Row):
    """One page, which is also its row: the typed fields (`Row`: the key table of its shape and
    a tuple of values) and the few facts its `file` fields are computed from on access (name,
    folder, path, ext, link, size, ctime, cday, mtime, mday, tags, etags, outlinks, aliases,
    frontmatter, day, starred; `tasks`, `lists` and `inlinks` as `items.FileFields` reads them).
    `file` is a `PageFile` made when a query reads it: one object per page instead of a page,
    its row and the row's tuple (~5 MB less at 10^5 notes). Outgoing links and the frontmatter
    as written are read from the index when asked (`reads.IndexReader`)."""

    __slots__ = ("path", "size", "mtime", "ctime", "tag_list", "aliases", "_links")

    def __init__(self, path: str, facts: tuple[Any, ...], tags: tuple[str, ...], links: Links) -> None:
        super().__init__(_NO_KEYS, ())  # the fields are set by the build (`_page`)
        self.path = path  # no note id: what a page reads from the index it reads by path
        self.size, self.mtime, self.ctime, self.aliases = facts  # ctime: whole seconds (`_seconds`)
        self.tag_list = tags  # as written, without '#'
        self._links = links

    def get(self, key: str, default: Any = None) -> Any:
        at = self._keys.get(key)
        if at is None:
            return default
        value = self._values[at]
        return PageFile(self) if value is _FILE else value

    def __getitem__(self, key: str) -> Any:
        value = self._values[self._keys[key]]
        return PageFile(self) if value is _FILE else value

    def fields(self) -> Iterator[Any]:
        """The values of the page's own fields (not `file`)."""
        return (v for v in self._values if v is not _FILE)

    def implicit(self, key: str) -> Any:
        return _FILE_FIELDS[key](self)

    def implicit_keys(self) -> Collection[str]:
        return _FILE_FIELDS.keys()

    def has_tag(self, tag: str) -> bool:
        """Whether the page has lower-case `tag` (without '#') or a tag nested under it."""
        nested = tag + "/"
        return any(t.lower() == tag or t.lower().startswith(nested) for t in self.tag_list)

    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1].removesuffix(".md")

    def outlinks(self) -> list[Link]:
        rows = self._links.outlinks(self.path)
        return [Link(t or raw, alias, bool(embed), sub, raw) for t, raw, sub, alias, embed in rows]

    def inlinks(self) -> list[Link]:
        return self._links.of(self.path)

    def list_items(self) -> ItemCache:
        return items_of(self.path, self._links)  # kept by the running query, not the page (`items.scope`)

    def day(self) -> dt.datetime | None:
        # markdown-file.ts findDate: a `date` or `day` field holding a date (or a list whose
        # first value is one) first, then a date in the file's title
        for key in ("date", "day"):
            value = self.get(key)
            if isinstance(value, list) and value:
                value = value[0]
            if isinstance(value, dt.datetime):
                return value
        name = self.name()
        m = _DAY_IN_NAME.search(name) or _DAY_IN_DIGITS.search(name)
        return parse_date(f"{m.group(1)}-{m.group(2)}-{m.group(3)}") if m is not None else None


class PageFile(FileFields):
    """A page's `file`, made each time a query reads it (the page keeps none)."""

    __slots__ = ("_data",)

    def __init__(self, page: Page) -> None:
        self._data = page

    def _page(self) -> Page:
        return self._data

    def __getitem__(self, key: str) -> Any:
        compute = _FILE_FIELDS.get(key)
        return compute(self._data) if compute is not None else FileFields.__getitem__(self, key)

    def __eq__(self, other: object) -> bool:
        if type(other) is PageFile and other._data is self._data:
            return True  # the same page's: no field computed to tell
        return FileFields.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]


_FILE_FIELDS: dict[str, Callable[[Page], Any]] = {
    "name": Page.name, "folder": lambda p: p.path.rpartition("/")[0], "path": lambda p: p.path,
    "ext": lambda p: p.path.rsplit(".", 1)[-1], "link": lambda p: Link(p.path), "size": lambda p: p.size,
    "ctime": lambda p: values.stamp(p.ctime), "cday": lambda p: values.day_start(values.stamp(p.ctime)),
    "mtime": lambda p: values.stamp(p.mtime), "mday": lambda p: values.day_start(values.stamp(p.mtime)),
    "tags": lambda p: all_tags(list(p.tag_list)), "etags": lambda p: ["#" + t for t in p.tag_list],
    "outlinks": Page.outlinks, "aliases": lambda p: json.loads(p.aliases or "[]"),
    "frontmatter": lambda p: p._links.props(p.path), "day": Page.day, "starred": lambda p: False,
}  # fmt: skip


class PageSet:
    def __init__(self, paths: list[str]) -> None:
        self.pages: dict[str, Page] = {}
        self._paths: Collection[str] = set(paths)  # the pages' keys once built (`done`)
        self.order = sorted(paths)
        self.ordered_rows: list[Page] | None = None  # the rows of `order`, built on first use
        self.names = Names(self.order)

    def done(self) -> None:  # every page made: the set of paths (5 MB at 10^5) gives way to their keys
        self._paths = self.pages.keys()

    def tags_of(self, path: str) -> Tags | None:
        """The page's tag tuple (what a Bases snapshot of the vault built next may share)."""
        page = self.pages.get(path)
        return page.tag_list if page is not None else None

    def resolve_path(
        self, target: str, readable: Callable[[str], bool] | None = None, source: str | None = None
    ) -> str | None:
        """The note `target` names; with `readable`, among the notes it allows only (a caller's view).
        As Obsidian's link lookup (Dataview resolves every link with it) and the link index
        (`linkpath.PathSet.resolve`) read a bare name: the notes whose file name is the name, with
        or without '.md' ('plan.md' names plan.md and the note 'plan.md', plan.md.md); of several,
        the one of that path at the vault's top (any letter case, the name as written first), else,
        from the note `source`, the one in its folder, else the one with the shortest path
        (`service.obsidian.link_order`)."""
        target = target.strip()
        if not target:
            return None
        for candidate in (target, target + ".md"):
            if candidate in self._paths and (readable is None or readable(candidate)):
                return candidate
        name = target.rsplit("/", 1)[-1].lower()
        found = self.names.get(name.removesuffix(".md"))
        if name.endswith(".md") and "/" not in target and (also := self.names.get(name)):
            found = sorted({*found, *also}, key=closeness)
        if readable is not None:
            found = [p for p in found if readable(p)]
        if len(found) == 1 and "/" not in target:
            return found[0]
        if len(found) > 1 and "/" not in target:
            return _closest(found, name, source)
        suffix = "/" + target.lower().removesuffix(".md") + ".md"
        return next((p for p in found if ("/" + p.lower()).endswith(suffix)), None)

    def inlinks(self, path: str) -> list[str]:
        """The pages linking to `path` (sorted), read from the index."""
        page = self.pages.get(path)
        return [p for p in page._links.reader.inlinks(path) if p in self._paths] if page is not None else []

    def linking_to_written(self, written: str, hidden: Callable[[str], bool] | None = None) -> list[str]:
        """The pages with a link written `written` (no subpath) that resolves to no note, or with
        `hidden`, to a note it holds of that name (a caller's view: as if that note were absent):
        Dataview's `FROM [[X]]` when X is no note (resolver.ts, `index.links.getInverse`)."""
        page = next(iter(self.pages.values()), None)
        if page is None:
            return []
        reader = page._links.reader
        found = set(reader.written(written))
        if hidden is not None:
            for target in self.names.get(written.rsplit("/", 1)[-1].lower().removesuffix(".md")):
                if hidden(target):
                    found.update(reader.written(written, target))
        return sorted(p for p in found if p in self._paths)

    def outlinks(self, path: str) -> list[str]:
        """The paths the page at `path` links to (resolved ones), in the note's order."""
        page = self.pages.get(path)
        return [t for t, *_ in page._links.outlinks(path) if t] if page is not None else []

    def resolve(self, link: Link, source: str | None = None) -> Link:
        path = self.resolve_path(link.path, source=source)
        if path and path != link.path:
            return Link(path, link.display, link.embed, link.subpath, written=link.path)
        return link

    def resolve_value(self, value: Any, source: str | None = None) -> Any:
        """`value` with its links resolved, from the note `source` that holds it when given."""
        if isinstance(value, Link):
            return self.resolve(value, source)
        if isinstance(value, list):
            return [self.resolve_value(v, source) for v in value]
        if isinstance(value, dict):
            return {k: self.resolve_value(v, source) for k, v in value.items()}
        return value


def _page(
    record: tuple[Any, ...],
    pages: PageSet,
    holder: Links,
    shared: dict[Any, Any],
    shapes: Shapes,
    peer: Callable[[str], Tags | None],
) -> Page:
    path, aliases, tags_json, mtime, ctime, size, props_json, fields_json = record
    tag_sets: dict[Tags, Tags] = shared[_TAG_SETS]  # decoded each time: no text kept (`_TAG_SETS`)
    written: list[str] = json.loads(tags_json) if tags_json and tags_json != "[]" else []
    decoded = tuple(map(shared.setdefault, written, written))  # texts, each shared (`share`)
    tags = tag_sets.get(decoded)
    if tags is None:  # the Bases snapshot's tuple when it holds an equal one (`service.query_images`)
        tags = tag_sets[decoded] = borrowed(decoded, peer(path))
    aliases = shared.setdefault(aliases, aliases)
    facts = (same(shared, size), same(shared, mtime), same(shared, values.whole_seconds(ctime or mtime)), aliases)
    page = Page(path, facts, tags, holder)
    row: dict[str, Any] = {}
    multi = set[str]()
    for key, value in (json.loads(props_json) if props_json and props_json != "{}" else {}).items():
        put(row, str(key), share(shared, pages.resolve_value(from_frontmatter(value), path)), False, multi, True)
    for key, raw, _line in json.loads(fields_json) if fields_json else ():
        put(row, key, share(shared, pages.resolve_value(parse_inline_value(raw), path)), True, multi)
    row["file"] = _FILE
    page._keys, page._values = shapes.table(row)
    return page


@dataclass(slots=True)
class Built:
    """A vault's page set and what the next rebuild may reuse."""

    pages: PageSet
    versions: array[int]  # hash of (etag, mtime, ctime, size) of each page built, in `pages.order`
    links: Links
    used: float = field(default=0.0)  # time.monotonic() of the last query that read it


# Dataview's pages are Markdown files: a canvas row (indexed for search and backlinks) is no page.
_NOTES = f"SELECT id, path, etag, mtime, ctime, size, aliases, tags FROM notes WHERE vault_id = ? AND {not_canvas()}"
# Only the inline fields of the facts: list items are read when a query asks (`reads`).
_CONTENT = (
    "SELECT n.id, n.properties, CASE WHEN d.facts <> '' THEN json_extract(d.facts, '$.f') END"
    " FROM notes n LEFT JOIN dataview_facts d ON d.note_id = n.id"
)

_PATHS = f"SELECT path FROM notes WHERE vault_id = ? AND {not_canvas()}"
_WHOLE = (  # a first build's one statement, in id order as `load` makes pages
    "SELECT n.id, n.path, n.etag, n.mtime, n.ctime, n.size, n.aliases, n.tags, n.properties,"
    " CASE WHEN d.facts <> '' THEN json_extract(d.facts, '$.f') END FROM notes n LEFT JOIN dataview_facts d"
    f" ON d.note_id = n.id WHERE n.vault_id = ? AND {not_canvas('n.path')} ORDER BY n.id"
)


def _chunked(conn: sqlite3.Connection, sql: str, ids: list[int], column: str) -> list[Any]:
    rows: list[Any] = []
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        rows += conn.execute(f"{sql} WHERE {column} IN ({','.join('?' * len(chunk))})", chunk).fetchall()
    return rows


def load(conn: sqlite3.Connection, vault_id: str, previous: Built | None = None) -> Built:
    """The vault's pages. Pages of `previous` are kept where the note is unchanged (same etag,
    times and size) and no note was added or removed (names decide where links resolve)."""
    if previous is None:
        return _first(conn, vault_id)
    # Paths interned: the Bases snapshot of the same vault holds the same path objects.
    records = [(r[0], sys.intern(r[1]), *r[2:]) for r in conn.execute(_NOTES, (vault_id,))]
    paths = {int(r[0]): str(r[1]) for r in records}
    pages = PageSet(list(paths.values()))
    holder = previous.links
    same_names = previous.pages.order == pages.order
    by_path = {str(r[1]): r for r in records}
    versions = array("q", (hash(tuple(by_path[p][2:6])) for p in pages.order))
    keep = {p for i, p in enumerate(pages.order) if same_names and previous.versions[i] == versions[i]}
    stale = [nid for nid, p in paths.items() if p not in keep]
    whole = len(stale) > len(records) // 2
    # Content rows come in note id order and are merged with the notes as they come: no list or
    # dict of every note's text at once (at 10^5 notes the process kept that memory after).
    content: Iterator[Any] = iter(
        conn.execute(_CONTENT + " WHERE n.vault_id = ? ORDER BY n.id", (vault_id,))
        if whole
        else sorted(_chunked(conn, _CONTENT, stale, "n.id"))
    )
    row = next(content, None)
    shared: dict[Any, Any] = {_TAG_SETS: {}}
    shapes = Shapes()
    peer = peer_tags("dataview", vault_id)
    for nid, path, _etag, mtime, ctime, size, aliases, tags in sorted(records):
        if path in keep:
            pages.pages[path] = previous.pages.pages[path]
            continue
        while row is not None and row[0] < nid:  # a canvas row: no page
            row = next(content, None)
        props, fields = (row[1], row[2]) if row is not None and row[0] == nid else (None, None)
        record = (path, aliases, tags, mtime, ctime, size, props, fields)
        pages.pages[path] = _page(record, pages, holder, shared, shapes, peer)
    pages.done()
    holder.current = pages
    publish("dataview", vault_id, pages)
    return Built(pages, versions, holder)


def _first(conn: sqlite3.Connection, vault_id: str) -> Built:
    """The names, then each page as its row comes (not every row first: ~30 MB more resident)."""
    pages = PageSet([sys.intern(p) for (p,) in conn.execute(_PATHS, (vault_id,))])
    holder = Links(IndexReader(conn, vault_id))
    versions = array("q", bytes(8 * len(pages.order)))  # no dict of 10^5 paths and their ints
    shared: dict[Any, Any] = {_TAG_SETS: {}}
    shapes = Shapes()
    peer = peer_tags("dataview", vault_id)
    for _nid, raw_path, etag, mtime, ctime, size, aliases, tags, props, fields in conn.execute(_WHOLE, (vault_id,)):
        path = sys.intern(raw_path)  # the object PageSet holds
        versions[bisect.bisect_left(pages.order, path)] = hash((etag, mtime, ctime, size))
        record = (path, aliases, tags, mtime, ctime, size, props, fields)
        pages.pages[path] = _page(record, pages, holder, shared, shapes, peer)
    pages.done()
    holder.current = pages
    publish("dataview", vault_id, pages)
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

    def get(
        self, owner: object, conn: sqlite3.Connection, vault_id: str, version: int | None = None, *, query: bool = True
    ) -> PageSet:
        """The vault's pages. `version` is the indexer's generation, read before this call (every
        index write bumps it); without one, a signature of the notes table is read instead. A
        call with `query=False` (the background refresh) does not count as a use."""
        signature = (
            ("generation", version) if version is not None else tuple(conn.execute(_SIGNATURE, (vault_id,)).fetchone())
        )
        with self._lock:
            sets = self._sets.setdefault(owner, {})
            cached = sets.get(vault_id)
            now = time.monotonic()
            if cached is not None and cached[0] == signature:
                if query:
                    cached[1].used = now
                return cached[1].pages
            with paused():  # building ~10^6 small objects: generational collections only cost time here
                built = load(conn, vault_id, cached[1] if cached is not None else None)
            built.used = now if query or cached is None else cached[1].used
            sets[vault_id] = (signature, built)
            return built.pages

    def release_idle(self, idle_s: float) -> int:
        """Drop the page sets no query has read for `idle_s` seconds (the next query builds its
        set again); returns how many were dropped."""
        cutoff = time.monotonic() - idle_s
        dropped = 0
        with self._lock:
            for sets in list(self._sets.values()):
                for vault_id in [v for v, (_sig, built) in sets.items() if built.used <= cutoff]:
                    del sets[vault_id]
                    dropped += 1
        return dropped


def _closest(found: list[str], name: str, source: str | None) -> str:
    """Of the notes a bare name (lower case) several share, the one the link index takes
    (`linkpath.PathSet.resolve`): the name as a path from the vault's top (as written, then with
    '.md'), the first in `source`'s folder, else the shortest path
    (`service.obsidian.link_order`)."""
    for key in (name, name + ".md"):
        top = sorted(p for p in found if p.lower() == key)
        if top:
            return top[0]
    here = source.rpartition("/")[0] if source else None
    mine = next((p for p in found if p.rpartition("/")[0] == here), None) if here else None
    return mine or min(found, key=closeness)
