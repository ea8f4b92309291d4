"""Dataview pages built from the index, cached per vault until the index changes.

A page's row holds its frontmatter (strings typed as links, dates, durations), its inline
fields (a key written twice becomes a list; each key also under its simplified name) and
`file` with the implicit fields (name, folder, path, ext, link, size, ctime, cday, mtime, mday,
tags, etags, inlinks, outlinks, aliases, tasks, lists, frontmatter, day). Reads the index
tables `notes`, `links` and `dataview_facts`; never the vault files. The set is rebuilt when
the index's signature (note count, newest index time and mtime, id sum) changes, so queries
between two index updates share one parse. `View` is one caller's window on the set: a note
the caller may not read is absent from it and from every `file.inlinks` / `file.outlinks`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from service.dataview.fields import decode, task_fields
from service.dataview.values import (
    Link,
    canonical_key,
    from_frontmatter,
    parse_date,
    parse_inline_value,
    strip_formatting,
)

_DAY_IN_NAME = re.compile(r"(\d{4})-?(\d{2})-?(\d{2})")
_TAG = re.compile(r"(?<![\w#])#([^\s#,.;:!?()\[\]{}\"'`]+)")
_WIKILINK = re.compile(r"\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]")


@dataclass(slots=True)
class Page:
    path: str
    row: dict[str, Any]
    outlinks: list[str]  # resolved target paths, in order
    tags: frozenset[str]  # lower-case, parents included, without '#'


class PageSet:
    def __init__(self, pages: dict[str, Page], inlinks: dict[str, list[str]]) -> None:
        self.pages = pages
        self.inlinks = inlinks
        self.by_name: dict[str, list[str]] = {}
        for path in sorted(pages, key=lambda p: (p.count("/"), p)):
            self.by_name.setdefault(path.rsplit("/", 1)[-1].removesuffix(".md").lower(), []).append(path)

    def resolve_path(self, target: str) -> str | None:
        target = target.strip()
        if not target:
            return None
        for candidate in (target, target + ".md"):
            if candidate in self.pages:
                return candidate
        found = self.by_name.get(target.rsplit("/", 1)[-1].removesuffix(".md").lower(), [])
        suffix = "/" + target.lower().removesuffix(".md") + ".md"
        matches = [p for p in found if ("/" + p.lower()).endswith(suffix)]
        return matches[0] if matches else None

    def resolve(self, link: Link) -> Link:
        path = self.resolve_path(link.path)
        return Link(path, link.display, link.embed, link.subpath) if path and path != link.path else link


def _typed_links(value: Any, pages: PageSet) -> Any:
    if isinstance(value, Link):
        return pages.resolve(value)
    if isinstance(value, list):
        return [_typed_links(v, pages) for v in value]
    if isinstance(value, dict):
        return {k: _typed_links(v, pages) for k, v in value.items()}
    return value


def _put(row: dict[str, Any], key: str, value: Any, merge: bool) -> None:
    key = strip_formatting(key)
    for name in {key, canonical_key(key)}:
        if not name:
            continue
        if merge and name in row:
            old = row[name]
            row[name] = [*old, value] if isinstance(old, list) and name in row.get("\0multi", ()) else [old, value]
            row.setdefault("\0multi", set()).add(name)
        else:
            row[name] = value


def _stamp(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds).replace(microsecond=0)


def _all_tags(tags: list[str]) -> list[str]:
    out: list[str] = []
    for tag in tags:
        parts = tag.split("/")
        for i in range(1, len(parts) + 1):
            t = "#" + "/".join(parts[:i])
            if t not in out:
                out.append(t)
    return out


def _items(path: str, items: list[list[Any]], pages: PageSet) -> list[dict[str, Any]]:
    rows: dict[int, dict[str, Any]] = {}
    out: list[dict[str, Any]] = []
    for line, parent, status, text, block in items:
        fields = task_fields(text)
        item: dict[str, Any] = {
            "text": text, "visual": text, "line": line, "lineCount": 1, "path": path,
            "link": Link(path, None, False, f"^{block}" if block else None), "section": None,
            "tags": _all_tags([m.group(1) for m in _TAG.finditer(text)]),
            "outlinks": [pages.resolve(Link(m.group(1))) for m in _WIKILINK.finditer(text)],
            "children": [], "task": status is not None, "annotated": bool(fields),
            "parent": parent if parent >= 0 else None, "blockId": block,
            "status": status, "checked": status is not None and status != " ",
            "completed": status in ("x", "X"), "fullyCompleted": status in ("x", "X"),
        }  # fmt: skip
        for key, raw in fields:
            _put(item, key, _typed_links(parse_inline_value(raw), pages), merge=True)
        item.pop("\0multi", None)
        rows[line] = item
        if parent >= 0 and parent in rows:
            rows[parent]["children"].append(item)
        out.append(item)
    for item in reversed(out):  # children come after their parent: settle bottom-up
        if item["task"]:
            item["fullyCompleted"] = item["completed"] and all(
                c["fullyCompleted"] for c in item["children"] if c["task"]
            )
    return out


def _page(record: tuple[Any, ...], links: list[tuple[str | None, str, str | None, str | None, int]], pages: PageSet,
          inlinks: list[str]) -> Page:  # fmt: skip
    path, folder, aliases, props_json, tags_json, mtime, ctime, size, facts = record
    props = json.loads(props_json or "{}")
    tags = json.loads(tags_json or "[]")
    fields, items = decode(facts)
    row: dict[str, Any] = {}
    for key, value in props.items():
        _put(row, str(key), _typed_links(from_frontmatter(value), pages), merge=False)
    for key, raw, _line in fields:
        _put(row, key, _typed_links(parse_inline_value(raw), pages), merge=True)
    row.pop("\0multi", None)
    name = path.rsplit("/", 1)[-1].removesuffix(".md")
    outlinks = [Link(target or raw, alias, bool(embed), sub) for target, raw, sub, alias, embed in links]
    all_items = _items(path, items, pages)
    day = None
    m = _DAY_IN_NAME.search(name)
    if m is not None:
        day = parse_date(f"{m.group(1)}-{m.group(2)}-{m.group(3)}")
    if day is None and isinstance(row.get("date"), dt.datetime):
        day = row["date"]
    mtime_d, ctime_d = _stamp(mtime), _stamp(ctime or mtime)
    row["file"] = {
        "name": name, "folder": folder, "path": path, "ext": path.rsplit(".", 1)[-1], "link": Link(path),
        "size": size, "ctime": ctime_d, "cday": ctime_d.replace(hour=0, minute=0, second=0),
        "mtime": mtime_d, "mday": mtime_d.replace(hour=0, minute=0, second=0),
        "tags": _all_tags(tags), "etags": ["#" + t for t in tags], "inlinks": [Link(p) for p in inlinks],
        "outlinks": outlinks, "aliases": json.loads(aliases or "[]"),
        "tasks": [i for i in all_items if i["task"]], "lists": all_items,
        "frontmatter": props, "day": day, "starred": False,
    }  # fmt: skip
    return Page(path, row, [t for t, *_ in links if t], frozenset(t.lower()[1:] for t in row["file"]["tags"]))


def load(conn: sqlite3.Connection, vault_id: str) -> PageSet:
    records = conn.execute(
        "SELECT n.id, n.path, n.folder, n.aliases, n.properties, n.tags, n.mtime, n.ctime, n.size, d.facts"
        " FROM notes n LEFT JOIN dataview_facts d ON d.note_id = n.id WHERE n.vault_id = ?",
        (vault_id,),
    ).fetchall()
    paths = {int(r[0]): str(r[1]) for r in records}
    links: dict[int, list[tuple[Any, ...]]] = {}
    inlinks: dict[str, list[str]] = {}
    for src, target, raw, sub, alias, embed in conn.execute(
        "SELECT src_id, target_path, target_raw, subpath, alias, embed FROM links WHERE vault_id = ? ORDER BY id",
        (vault_id,),
    ):
        links.setdefault(src, []).append((target, raw, sub, alias, embed))
        if target:
            sources = inlinks.setdefault(target, [])
            if paths.get(src) and paths[src] not in sources:
                sources.append(paths[src])
    # Every path first (placeholders): fields resolve their links by name while pages are built.
    pages = PageSet({str(r[1]): Page(str(r[1]), {}, [], frozenset()) for r in records}, inlinks)
    for r in records:
        path = str(r[1])
        pages.pages[path] = _page(tuple(r[1:]), links.get(int(r[0]), []), pages, sorted(inlinks.get(path, [])))
    return pages


_SIGNATURE = "SELECT count(*), max(indexed_at), max(mtime), total(id) FROM notes WHERE vault_id = ?"


class PageCache:
    """One PageSet per vault, rebuilt when the index signature changes (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sets: dict[str, tuple[Any, PageSet]] = {}

    def get(self, conn: sqlite3.Connection, vault_id: str) -> PageSet:
        signature = tuple(conn.execute(_SIGNATURE, (vault_id,)).fetchone())
        with self._lock:
            cached = self._sets.get(vault_id)
            if cached is not None and cached[0] == signature:
                return cached[1]
            pages = load(conn, vault_id)
            self._sets[vault_id] = (signature, pages)
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
            file = dict(page.row["file"])
            file["inlinks"] = [x for x in file["inlinks"] if self.can_read(x.path)]
            file["outlinks"] = [x for x in file["outlinks"] if x.path not in self.set.pages or self.can_read(x.path)]
            cached = self._rows[path] = {**page.row, "file": file}
        return cached

    def row_of(self, link: Link) -> Mapping[str, Any] | None:
        path = self.set.resolve_path(link.path)
        return self.row(path) if path else None

    def resolve(self, link: Link) -> Link:
        return self.set.resolve(link)
