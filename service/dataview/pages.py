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
the set: a note the caller may not read is absent from it and from every `file.inlinks` /
`file.outlinks`.
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

_DAY_IN_NAME = re.compile(r"(\d{4})-?(\d{2})-?(\d{2})")


@dataclass(slots=True)
class Page:
    path: str
    row: dict[str, Any]
    outlinks: list[str]  # resolved target paths, in order
    tags: frozenset[str]  # lower-case, parents included, without '#'


@dataclass(slots=True)
class Parsed:
    """What one note's content gives, kept while its content hash (etag) is unchanged."""

    etag: str
    fields: dict[str, Any]  # frontmatter and inline fields, typed, links resolved
    frontmatter: dict[str, Any]
    items: list[list[Any]]


class PageSet:
    def __init__(self, paths: list[str]) -> None:
        self.pages: dict[str, Page] = {}
        self.inlinks: dict[str, list[str]] = {}
        self.by_name: dict[str, list[str]] = {}
        self._paths = set(paths)
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
        return Link(path, link.display, link.embed, link.subpath) if path and path != link.path else link

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


def _parse(etag: str, props_json: str | None, facts: str | None, pages: PageSet) -> Parsed:
    props = json.loads(props_json or "{}")
    fields, items = decode(facts)
    row: dict[str, Any] = {}
    multi: set[str] = set()
    for key, value in props.items():
        put(row, str(key), pages.resolve_value(from_frontmatter(value)), False, multi)
    for key, raw, _line in fields:
        put(row, key, pages.resolve_value(parse_inline_value(raw)), True, multi)
    return Parsed(etag, row, props, items)


def _page(record: tuple[Any, ...], parsed: Parsed, links: list[tuple[Any, ...]], pages: PageSet) -> Page:
    path, folder, aliases, tags_json, mtime, ctime, size = record
    tags = json.loads(tags_json or "[]")
    name = path.rsplit("/", 1)[-1].removesuffix(".md")
    day = None
    m = _DAY_IN_NAME.search(name)
    if m is not None:
        day = parse_date(f"{m.group(1)}-{m.group(2)}-{m.group(3)}")
    if day is None and isinstance(parsed.fields.get("date"), dt.datetime):
        day = parsed.fields["date"]
    mtime_d, ctime_d = _stamp(mtime), _stamp(ctime or mtime)
    file_tags = all_tags(tags)
    data = {
        "name": name, "folder": folder, "path": path, "ext": path.rsplit(".", 1)[-1], "link": Link(path),
        "size": size, "ctime": ctime_d, "cday": ctime_d.replace(hour=0, minute=0, second=0),
        "mtime": mtime_d, "mday": mtime_d.replace(hour=0, minute=0, second=0),
        "tags": file_tags, "etags": ["#" + t for t in tags],
        "inlinks": [Link(p) for p in sorted(pages.inlinks.get(path, ()))],
        "outlinks": [Link(target or raw, alias, bool(embed), sub) for target, raw, sub, alias, embed in links],
        "aliases": json.loads(aliases or "[]"), "frontmatter": parsed.frontmatter, "day": day, "starred": False,
    }  # fmt: skip
    row = {**parsed.fields, "file": FileFields(data, ItemCache(path, parsed.items, pages.resolve_value))}
    return Page(path, row, [t for t, *_ in links if t], frozenset(t.lower()[1:] for t in file_tags))


def load(
    conn: sqlite3.Connection, vault_id: str, known: dict[str, Parsed] | None = None
) -> tuple[PageSet, dict[str, Parsed]]:
    """The vault's pages; `known` (parsed notes of the previous set) is reused where the etag
    and the set of paths are unchanged. Returns the pages and the parsed notes to keep."""
    records = conn.execute(
        "SELECT id, path, etag, folder, aliases, tags, mtime, ctime, size FROM notes WHERE vault_id = ?",
        (vault_id,),
    ).fetchall()
    paths = {int(r[0]): str(r[1]) for r in records}
    pages = PageSet(list(paths.values()))
    reuse = known if known is not None and set(known) == set(paths.values()) else {}
    stale = [int(r[0]) for r in records if (old := reuse.get(str(r[1]))) is None or old.etag != r[2]]
    content: dict[int, tuple[Any, Any]] = {}
    sql = "SELECT n.id, n.properties, d.facts FROM notes n LEFT JOIN dataview_facts d ON d.note_id = n.id"
    if len(stale) > len(records) // 2:
        rows = conn.execute(sql + " WHERE n.vault_id = ?", (vault_id,)).fetchall()
    else:
        rows = []
        for i in range(0, len(stale), 500):
            chunk = stale[i : i + 500]
            rows += conn.execute(sql + f" WHERE n.id IN ({','.join('?' * len(chunk))})", chunk).fetchall()
    for nid, props, facts in rows:
        content[int(nid)] = (props, facts)
    links: dict[int, list[tuple[Any, ...]]] = {}
    inlinks: dict[str, dict[str, None]] = {}
    for src, target, raw, sub, alias, embed in conn.execute(
        "SELECT src_id, target_path, target_raw, subpath, alias, embed FROM links WHERE vault_id = ? ORDER BY id",
        (vault_id,),
    ):
        links.setdefault(src, []).append((target, raw, sub, alias, embed))
        if target and src in paths:
            inlinks.setdefault(target, {})[paths[src]] = None
    pages.inlinks = {target: list(sources) for target, sources in inlinks.items()}
    parsed_all: dict[str, Parsed] = {}
    for nid, path, etag, *rest in records:
        parsed = reuse.get(path)
        if parsed is None or parsed.etag != etag:
            props, facts = content.get(int(nid), (None, None))
            parsed = _parse(etag, props, facts, pages)
        parsed_all[path] = parsed
        pages.pages[path] = _page((path, *rest), parsed, links.get(int(nid), []), pages)
    return pages, parsed_all


_SIGNATURE = "SELECT count(*), max(indexed_at), max(mtime), total(id) FROM notes WHERE vault_id = ?"


class PageCache:
    """One PageSet per index database and vault, rebuilt when the index signature changes
    (thread-safe; a database that is gone takes its entries with it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sets: weakref.WeakKeyDictionary[object, dict[str, tuple[Any, PageSet, dict[str, Parsed]]]] = (
            weakref.WeakKeyDictionary()
        )

    def get(self, owner: object, conn: sqlite3.Connection, vault_id: str) -> PageSet:
        signature = tuple(conn.execute(_SIGNATURE, (vault_id,)).fetchone())
        with self._lock:
            sets = self._sets.setdefault(owner, {})
            cached = sets.get(vault_id)
            if cached is not None and cached[0] == signature:
                return cached[1]
            pages, parsed = load(conn, vault_id, cached[2] if cached is not None else None)
            sets[vault_id] = (signature, pages, parsed)
            return pages


class View:
    """The pages one caller may read, with links to unreadable notes removed."""

    def __init__(self, pages: PageSet, can_read: Callable[[str], bool], everything: bool) -> None:
        self.set = pages
        self.can_read = can_read
        self.everything = everything
        self._rows: dict[str, Mapping[str, Any]] = {}

    def paths(self) -> list[str]:
        return sorted(p for p in self.set.pages if self.everything or self.can_read(p))

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
                outlinks=[x for x in file["outlinks"] if x.path not in self.set.pages or self.can_read(x.path)],
            )
            cached = self._rows[path] = {**page.row, "file": readable}
        return cached

    def row_of(self, link: Link) -> Mapping[str, Any] | None:
        path = self.set.resolve_path(link.path)
        return self.row(path) if path else None

    def resolve(self, link: Link) -> Link:
        return self.set.resolve(link)
