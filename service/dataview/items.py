"""A page's list items and tasks, and its `file` object, built lazily.

Most queries never look at `file.tasks` or `file.lists`, so a page keeps no list items: on
first access `ItemCache` reads them from the index (`dataview_facts`, through an `ItemSource`)
and `FileFields` turns them into rows. A page keeps none of them: a query keeps the items of the
last `SCOPE_PAGES` pages it read (`scope`, an LRU the query drops when it ends), so a query over
every page holds a few pages' items at a time (at 10^5 notes, TASK kept every page's items in the
page image: +936 MB that stayed, and 5 million tracked objects each full collection walked). Each
item has Dataview's implicit fields (text, line, path, status, checked, completed, fullyCompleted,
children, parent, section, tags, outlinks, link, blockId, task, annotated ...) plus its own
inline fields and the Tasks plugin's emoji dates (due, completion, created, start, scheduled),
read by `service.markdown.tasks` as the index's task rows are. Touches nothing outside itself.
"""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol, cast

from service.dataview.fields import bracket_fields
from service.dataview.values import Link, canonical_key, parse_inline_value, strip_formatting
from service.markdown.tasks import scan_fields as scan_task_fields

_TAG = re.compile(r"(?<![\w#])#([^\s#,.;:!?()\[\]{}\"'`]+)")
_WIKILINK = re.compile(r"\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]")

Resolve = Callable[[Any], Any]  # a value with its links resolved against the vault


def put(row: dict[str, Any], key: str, value: Any, merge: bool, multi: set[str], written: bool = False) -> None:
    """Store a field under its name (an inline key's formatting stripped; a frontmatter key as
    `written`) and its canonical name; with `merge`, a key seen before becomes a list of its
    values (as Dataview does for repeated inline keys)."""
    for name in _names(key, written):
        if merge and name in row:
            old = row[name]
            row[name] = [*old, value] if name in multi else [old, value]
            multi.add(name)
        else:
            row[name] = value


def same(table: dict[Any, Any], value: Any) -> Any:
    """One object for equal values of one type across a build's pages (sizes and modification
    times repeat: 7,026 sizes and 2,441 times among the 100k workload's notes)."""
    kept = table.setdefault(value, value)
    return kept if type(kept) is type(value) else value  # 1 == 1.0: a size is never a time


@functools.lru_cache(maxsize=4096)
def _names(key: str, written: bool = False) -> tuple[str, ...]:
    """The names a field is stored under: as written (an inline key's formatting stripped) and
    canonical (markdown-file.ts: a frontmatter key is kept as is, 'key ' canonical 'key-')."""
    plain = key if written else strip_formatting(key)
    return tuple(n for n in dict.fromkeys((plain, canonical_key(plain))) if n)


def all_tags(tags: list[str]) -> list[str]:
    """Tags with every parent level: `a/b/c` gives #a, #a/b, #a/b/c (as file.tags lists them)."""
    out: list[str] = []
    for tag in tags:
        parts = tag.split("/")
        for i in range(1, len(parts) + 1):
            t = "#" + "/".join(parts[:i])
            if t not in out:
                out.append(t)
    return out


# The Tasks plugin fields Dataview reads on list items (its emoji shorthands), by the name
# `service.markdown.tasks` gives them: read there, in both formats, by the project's one parser.
_TASK_DATES = {"due": "due", "done": "completion", "created": "created", "start": "start", "scheduled": "scheduled"}


def _item_fields(text: str) -> list[tuple[str, str]]:
    """A list item's fields: its `[key:: value]` / `(key:: value)` fields, then the Tasks plugin
    dates written as emoji (`📅 2026-11-30`) that no bracketed field already gave."""
    fields = bracket_fields(text)
    if not text.isascii():
        written = {canonical_key(k) for k, _ in fields}
        found = scan_task_fields(text)[0]
        fields += [(dv, found[name]) for name, dv in _TASK_DATES.items() if name in found and dv not in written]
    return fields


def build_items(path: str, items: list[list[Any]], resolve: Resolve) -> list[dict[str, Any]]:
    rows: dict[int, dict[str, Any]] = {}
    out: list[dict[str, Any]] = []
    for raw in items:
        line, parent, status, text, block = raw[:5]
        section = raw[5] if len(raw) > 5 else None  # facts indexed before sections were stored have none
        tags = raw[6] if len(raw) > 6 else [m.group(1) for m in _TAG.finditer(text)]
        fields = _item_fields(text)
        item: dict[str, Any] = {
            "text": text, "visual": text, "line": line, "lineCount": 1, "path": path,
            "link": Link(path, None, False, f"^{block}" if block else None),
            "section": Link(path, None, False, section) if section else Link(path),
            "tags": all_tags(tags),
            "outlinks": [resolve(Link(m.group(1))) for m in _WIKILINK.finditer(text)],
            "children": [], "task": status is not None, "annotated": bool(fields),
            "parent": parent if parent >= 0 else None, "blockId": block,
            "status": status, "checked": status is not None and status != " ",
            "completed": status in ("x", "X"), "fullyCompleted": status in ("x", "X"),
        }  # fmt: skip
        multi: set[str] = set()
        for key, value in fields:
            put(item, key, resolve(parse_inline_value(value)), True, multi)
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


class ItemSource(Protocol):
    """Where a page's raw list items come from (the index, read on first access) and how the
    links in their fields resolve (against the newest page set)."""

    def items(self, path: str) -> list[list[Any]]: ...

    def resolve_value(self, value: Any, source: str | None = None) -> Any: ...


SCOPE_PAGES = 64  # pages whose items one query keeps (rows are read in page order: one page at a time)
_SCOPE: ContextVar[OrderedDict[str, ItemCache] | None] = ContextVar("vaultgate_dataview_items", default=None)


@contextmanager
def scope() -> Iterator[None]:
    """Within the block (one query, one thread), the items of the last `SCOPE_PAGES` pages read
    are kept for the next reads; outside any block each read builds them again."""
    token = _SCOPE.set(OrderedDict())
    try:
        yield
    finally:
        _SCOPE.reset(token)


def items_of(path: str, source: ItemSource) -> ItemCache:
    """The page's `ItemCache` in the running query's scope (a new one outside any, kept by nobody)."""
    kept = _SCOPE.get()
    if kept is None:
        return ItemCache(path, source)
    cache = kept.get(path)
    if cache is None or cache._source is not source:
        cache = kept[path] = ItemCache(path, source)
        if len(kept) > SCOPE_PAGES:
            kept.popitem(last=False)
    else:
        kept.move_to_end(path)
    return cache


class ItemCache:
    """One page's list items: read from `source` and turned into rows on first access, once
    (kept for as long as the query's `scope` keeps this cache)."""

    __slots__ = ("_path", "_source", "_rows", "_inherited", "_cut")

    def __init__(self, path: str, source: ItemSource) -> None:
        self._path, self._source = path, source
        self._rows: list[dict[str, Any]] | None = None
        self._inherited: tuple[Mapping[str, Any], list[Inherited]] | None = None
        self._cut: tuple[Callable[[Any], Any], list[dict[str, Any]]] | None = None

    def task_rows(self, page: Mapping[str, Any]) -> list[Inherited]:
        """The tasks as TASK query rows over `page` (kept while the page row is the same one)."""
        cached = self._inherited
        if cached is not None and cached[0] is page:
            return cached[1]
        rows = [Inherited(task, page) for task in self.tasks()]
        self._inherited = (page, rows)
        return rows

    def lists(self) -> list[dict[str, Any]]:
        if self._rows is None:
            raw = self._source.items(self._path)
            path = self._path
            self._rows = build_items(path, raw, lambda v: self._source.resolve_value(v, path)) if raw else []
        return self._rows

    def tasks(self) -> list[dict[str, Any]]:
        return [i for i in self.lists() if i["task"]]

    def task_marks(self) -> list[tuple[Any, Any]]:
        """(line, text) of each task, in `tasks()` order, from the raw items when no row is built
        yet (a plain TASK query reads no more: building every list item's row was its cost)."""
        if self._rows is not None:
            return [(i["line"], i["text"]) for i in self._rows if i["task"]]
        return [(raw[0], raw[3]) for raw in self._source.items(self._path) or () if raw[2] is not None]

    def cut_lists(self, cut: Callable[[Any], Any]) -> list[dict[str, Any]]:
        """The list items with their link values through one caller's `cut` (copies; `children`
        point at the copies), kept beside the items."""
        if self._cut is not None and self._cut[0] == cut:
            return self._cut[1]
        items = self.lists()
        copies = {id(i): {k: cut(v) for k, v in i.items() if k != "children"} for i in items}
        for i in items:
            copies[id(i)]["children"] = [copies[id(c)] for c in i["children"] if id(c) in copies]
        rows = [copies[id(i)] for i in items]
        self._cut = (cut, rows)
        return rows


class FilePage(Protocol):
    """What `file` reads: the implicit fields (computed on access), the list items, the incoming links."""

    def implicit(self, key: str) -> Any:
        """The implicit field `key` (KeyError if there is none such)."""
        ...

    def implicit_keys(self) -> Collection[str]: ...

    def list_items(self) -> ItemCache: ...

    def inlinks(self) -> list[Link]: ...


class FileFields(Mapping[str, Any]):
    """`file`: the implicit fields of a page (computed on access) plus `tasks` / `lists` from
    `ItemCache` and `inlinks`, read when asked. A page's `file` is made when a query reads it
    (`pages.PageFile`: the page keeps none); a caller's view (`cut_with`, a `CutFile`) shows
    link values through its `cut` and only the incoming links it may read."""

    __slots__ = ()
    _LAZY = ("tasks", "lists", "inlinks")
    _cut: Callable[[Any], Any] | None = None  # one caller's view of link values (`view.View.cut`)
    _readable: Callable[[str], bool] | None = None  # which incoming links that caller sees

    def _page(self) -> FilePage:
        return cast(FilePage, self)  # a subclass over one page (`pages.PageFile`, `CutFile`) says which

    def __getitem__(self, key: str) -> Any:
        data = self._page()
        if key in data.implicit_keys():
            value = data.implicit(key)
            return self._cut(value) if key == "outlinks" and self._cut is not None else value
        if key == "tasks":
            return data.list_items().tasks() if self._cut is None else [i for i in self._lists() if i["task"]]
        if key == "lists":
            return data.list_items().lists() if self._cut is None else self._lists()
        if key == "inlinks":
            links = data.inlinks()
            readable = self._readable
            return links if readable is None else [x for x in links if readable(x.path)]
        raise KeyError(key)

    def _lists(self) -> list[dict[str, Any]]:
        return self._page().list_items().lists()

    def __contains__(self, key: object) -> bool:
        return key in self._page().implicit_keys() or key in self._LAZY

    def __iter__(self) -> Iterator[str]:
        keys = self._page().implicit_keys()
        yield from keys
        yield from (k for k in self._LAZY if k not in keys)

    def __len__(self) -> int:
        return len(set(self._page().implicit_keys()) | set(self._LAZY))

    def task_rows(self, page: Mapping[str, Any]) -> list[Inherited]:
        if self._cut is not None:
            return [Inherited(task, page) for task in self["tasks"]]
        return self._page().list_items().task_rows(page)

    def task_marks(self) -> tuple[str, list[tuple[Any, Any]]]:
        """The page's path and (line, text) of each of its tasks (`ItemCache.task_marks`; a
        caller's cut changes link values, never which tasks there are or their text)."""
        cache = self._page().list_items()
        return cache._path, cache.task_marks()

    def cut_with(self, cut: Callable[[Any], Any], readable: Callable[[str], bool]) -> FileFields:
        """A copy for one caller: its outgoing links, list items and tasks pass through `cut`,
        and only the incoming links from notes it may read are listed."""
        return CutFile(self._page(), cut, readable)


class CutFile(FileFields):
    """One caller's `file` of a page: link values through `cut`, incoming links it may read."""

    __slots__ = ("_data", "_cut", "_readable")

    def __init__(self, data: FilePage, cut: Callable[[Any], Any], readable: Callable[[str], bool]) -> None:
        self._data = data
        self._cut = cut
        self._readable = readable

    def _page(self) -> FilePage:
        return self._data

    def _lists(self) -> list[dict[str, Any]]:
        """The list items with their link values cut (kept with the items in the query's scope)."""
        cut = self._cut
        assert cut is not None
        return self._data.list_items().cut_lists(cut)


class Inherited(dict[str, Any]):
    """A list item's row in a TASK query: its own fields, then its page's (Dataview's tasks
    inherit every page field). Own keys are read at dict speed."""

    __slots__ = ("parent",)

    def __init__(self, own: Mapping[str, Any], parent: Mapping[str, Any]) -> None:
        super().__init__(own)
        self.parent = parent

    def __missing__(self, key: str) -> Any:
        return self.parent[key]

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self.parent

    def get(self, key: str, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        return self.parent.get(key, default)
