"""The notes a Bases query sees: one immutable snapshot of the index, already cut to what the
caller may read.

`Record` is one file (path, folder, stat facts, tags, raw frontmatter, outgoing links), kept
compact: a snapshot of 10^5 notes stays tens of megabytes. Its outgoing links come from a
`LinkTable` of the snapshot, read from the index the first time a query asks for any record's
links (file.links, file.embeds, file.backlinks, hasLink, linksTo, a restricted caller's view):
a query over properties and stat facts holds no link of the vault (at 10^5 notes and 10^6 links
they were ~45 MB of the server's resident memory);
`Snapshot` holds the records of one vault with the lookups the evaluator needs: by path, link
resolution by name (Obsidian's shortest-path rule: an exact path first, then the only or the
first note with that base name), and backlinks (a link written in a frontmatter property counts,
as in Obsidian: its row's `embed` is `PROPERTY`). `visible` builds the caller's view: denied
records are dropped, and a link into a denied note stays unresolved, so a denied note shows up
nowhere (not as a row, a backlink, a resolved link or a count). Touches nothing: built by
`service.bases.source` from index rows.
"""

from __future__ import annotations

import json
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from service.obsidian.link_order import closeness

PROPERTY = None  # a link row's `embed` when the link is written in a frontmatter property (no embed)


@dataclass(frozen=True, slots=True)
class LinkRow:
    target: str  # as written, without subpath
    path: str | None  # resolved vault path
    alias: str | None
    embed: bool | None  # True: an embed, False: a link of the body, PROPERTY (None): of a property


class StoredTexts(Protocol):
    """Where the frontmatter texts a record does not keep are read (`reads.IndexTexts`)."""

    def text(self, path: str) -> str: ...

    def having(self, key: str) -> Iterator[tuple[str, str]]: ...


Props = dict[str, Any] | str | StoredTexts


class Record:
    """One file. Its frontmatter is the index's JSON text, kept when short, else read from the
    index when a query needs it (`StoredTexts`; a query reads a property through its snapshot's
    column, `env.property_column`); its links are one flat tuple. What a query converts from
    it is kept by the snapshot (`Snapshot.columns`, `Snapshot.link_lists`), not on the record.
    Its creation time too is the snapshot's (`Snapshot.ctime`: one array, not a float object on
    each record, ~3 MB at 10^5 notes); a file of no snapshot is a `StatRecord`."""

    __slots__ = ("path", "size", "mtime", "tags", "_props", "_links", "i")

    def __init__(
        self,
        path: str,
        size: int,
        mtime: float,
        tags: Sequence[str],
        props: Props,
        links: list[LinkRow] | tuple[Any, ...] | LinkTable,
    ) -> None:
        self.path, self.size, self.mtime, self.tags = path, size, mtime, tags
        self._props = props  # a dict, its JSON text as the index holds it, or where to read that
        # (target, path, alias, embed) * n, or the table that fills it on first use
        self._links: tuple[Any, ...] | LinkTable = links if isinstance(links, tuple | LinkTable) else _flat(links)
        self.i = -1  # the record's place in the snapshot that holds it (and in its `versions`)

    @property
    def props(self) -> dict[str, Any]:
        raw = self._props
        if type(raw) is dict:
            return raw
        text = raw if type(raw) is str else cast(StoredTexts, raw).text(self.path)
        return dict(json.loads(text)) if text != "{}" else {}

    @property
    def raw_props(self) -> Props:
        return self._props

    @property
    def raw_links(self) -> tuple[Any, ...] | LinkTable:
        """The links as held: the flat tuple, or the table that has not read them yet."""
        return self._links

    @property
    def flat_links(self) -> tuple[Any, ...]:
        links = self._links
        if type(links) is tuple:
            return links
        assert isinstance(links, LinkTable)
        return links.fill(self)

    @property
    def links(self) -> list[LinkRow]:
        flat = self.flat_links
        return [LinkRow(flat[n], flat[n + 1], flat[n + 2], flat[n + 3]) for n in range(0, len(flat), 4)]

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def folder(self) -> str:
        return self.path.rpartition("/")[0]

    @property
    def basename(self) -> str:
        name = self.name
        return name.rpartition(".")[0] if "." in name else name

    @property
    def ext(self) -> str:
        name = self.name
        return name.rpartition(".")[2] if "." in name else ""


class StatRecord(Record):
    """A record with its own creation time: a file read outside any snapshot (a base's `this`
    file, a test's records), or what a snapshot made from such records takes its time from."""

    __slots__ = ("ctime",)

    def __init__(
        self,
        path: str,
        size: int,
        ctime: float,
        mtime: float,
        tags: Sequence[str],
        props: Props,
        links: list[LinkRow] | tuple[Any, ...] | LinkTable,
    ) -> None:
        super().__init__(path, size, mtime, tags, props, links)
        self.ctime = ctime


UNSET: Any = object()  # a column slot not converted yet
NOT_NOTE = -1  # the version of a file that is no note (`hash` never returns -1)


class LinkTable:
    """The outgoing links of one snapshot's records, read on the first record that asks.

    `read()` returns every note's links (path -> flat tuple); `fill` gives each record still
    waiting on this table its tuple at once, then lets go of the table's own copy, so the links
    then cost what they cost when read at the build. Thread-safe: queries run in worker threads."""

    def __init__(self, read: Callable[[], Mapping[str, tuple[Any, ...]]]) -> None:
        self._read = read
        self._lock = threading.Lock()
        self.records: list[Record] = []  # set by the snapshot's build: the records to fill

    def fill(self, record: Record) -> tuple[Any, ...]:
        """`record`'s links, reading the table first if no record has asked yet."""
        with self._lock:
            if record.raw_links is self:
                by_path = self._read()
                for rec in self.records:
                    if rec.raw_links is self:
                        rec._links = by_path.get(rec.path, ())
                self.records = []
                if record.raw_links is self:  # a record this table was not given (a copy)
                    record._links = by_path.get(record.path, ())
        links = record.raw_links
        # Another table's when a newer snapshot kept the record and took it over meanwhile.
        return links if type(links) is tuple else cast(LinkTable, links).fill(record)


def _flat(links: list[LinkRow]) -> tuple[Any, ...]:
    return tuple(v for link in links for v in (link.target, link.path, link.alias, link.embed))


def _strip_md(target: str) -> str:
    return target[:-3] if target.lower().endswith(".md") else target


class Snapshot:
    """Records of one vault plus link lookups; `visible` cuts it to one caller's read rights."""

    def __init__(
        self,
        records: list[Record],
        stamp: Any = None,
        versions: Iterable[int] = (),
        ctimes: Iterable[float] | None = None,
    ) -> None:
        # Each record's creation time, in record order; without `ctimes`, the `StatRecord`s' own.
        self.ctimes = array("d", ctimes if ctimes is not None else (cast(StatRecord, r).ctime for r in records))
        assert len(self.ctimes) == len(records)
        for i, r in enumerate(records):
            if r.i != i:  # kept from an older snapshot at another place: a copy, so both stay right
                if r.i >= 0:
                    r = records[i] = Record(r.path, r.size, r.mtime, r.tags, r.raw_props, r.raw_links)
                r.i = i
        self.records = records
        # Each record's note's hash of (etag, mtime, ctime, size) as read, NOT_NOTE for another
        # file: an array, not an int object on each record (~3 MB at 10^5 notes).
        self.versions = array("q", versions) or array("q", [NOT_NOTE]) * len(records)
        assert len(self.versions) == len(records)
        self.stamp = stamp
        self.texts: StoredTexts | None = None  # where its records' long frontmatter texts are read
        self.columns: dict[str, list[Any]] = {}  # property key -> its values in record order (query.fill)
        # A record's file.links and file.embeds values once a query made them (`methods.file_links`).
        self.link_lists: tuple[dict[Record, list[Any]], dict[Record, list[Any]]] = ({}, {})
        self._shared: dict[str, str] = {}
        self.by_path: dict[str, Record] = {r.path: r for r in records}
        self._names: tuple[dict[str, str], dict[str, str]] | None = None  # built by the first `resolve`
        self._backlinks: dict[str, list[str]] | None = None

    def ctime(self, rec: Record) -> float:
        """`rec`'s creation time: this snapshot's when `rec` is one of its records, else its own."""
        i = rec.i
        if 0 <= i < len(self.records) and self.records[i] is rec:
            return self.ctimes[i]
        return cast(StatRecord, rec).ctime

    def version(self, path: str) -> int | None:
        """The hash of (etag, mtime, ctime, size) the note at `path` was read at (None: no note;
        kept in `versions`, not in a dict of every path: ~8 MB at 10^5 notes)."""
        rec = self.by_path.get(path)
        version = self.versions[rec.i] if rec is not None else NOT_NOTE
        return version if version != NOT_NOTE else None

    def tags_of(self, path: str) -> tuple[str, ...] | None:
        """The record's tag tuple (what the Dataview pages of the vault built next may share)."""
        tags = rec.tags if (rec := self.by_path.get(path)) is not None else None
        return tags if isinstance(tags, tuple) else None

    def share(self, value: Any) -> Any:
        """`value`, one object for equal texts across records (a vault repeats its values)."""
        if type(value) is str and len(value) < 200:
            return self._shared.setdefault(value, value)
        return value

    def resolve(self, target: str, source: str | None = None) -> str | None:
        """The path a link target points to (case-insensitive, '.md' optional), or None. A bare
        name several notes share is the note of that path at the vault's top, else, from the note
        `source`, the one in its folder, else the shortest path (as the link index,
        `linkpath.PathSet.resolve`, and Dataview resolve it)."""
        t = target.strip()
        if t in self.by_path:
            return t
        written = t.split("#", 1)[0].lower().lstrip("/")
        key = _strip_md(written)
        if not key:
            return None
        by_stem, by_name = self._names or self._index_names()
        if "/" in key:
            return by_stem.get(key)
        # 'plan.md' names plan.md and the note 'plan.md' (plan.md.md), that one second, as the link index reads it
        keys = (key, written) if written != key else (key,)
        here = source.rpartition("/")[0].lower() if source else ""
        for stem in (*keys, *(f"{here}/{k}" for k in keys if here)):  # from the top, then from the note's folder
            if found := by_stem.get(stem):
                return found
        named = [p for p in (by_name.get(k) for k in keys) if p is not None]
        return min(named, key=closeness) if named else None

    def _index_names(self) -> tuple[dict[str, str], dict[str, str]]:
        """Lower-case path stems and base names -> path (the shortest path wins), made when a
        link is first resolved: a query that resolves none keeps no copy of every name."""
        by_stem: dict[str, str] = {}
        by_name: dict[str, str] = {}
        for r in sorted(self.records, key=lambda r: closeness(r.path)):
            by_stem.setdefault(_strip_md(r.path).lower(), r.path)
            by_name.setdefault(_strip_md(r.name).lower(), r.path)
        self._names = (by_stem, by_name)  # one assignment: a concurrent query sees both or none
        return by_stem, by_name

    def backlinks(self, path: str) -> list[str]:
        if self._backlinks is None:
            index: dict[str, list[str]] = {}
            for r in self.records:
                seen: set[str] = set()
                for link in r.links:
                    if link.path is not None and link.path not in seen:
                        seen.add(link.path)
                        index.setdefault(link.path, []).append(r.path)
            self._backlinks = index
        return self._backlinks.get(path, [])

    def visible(self, can_read: Callable[[str], bool]) -> Snapshot:
        kept = [r for r in self.records if can_read(r.path)]
        if len(kept) == len(self.records):
            return self
        allowed = {r.path for r in kept}
        cut = [
            Record(
                r.path,
                r.size,
                r.mtime,
                r.tags,
                r.raw_props,
                [
                    link
                    if link.path is None or link.path in allowed
                    else LinkRow(link.target, None, link.alias, link.embed)
                    for link in r.links
                ],
            )
            for r in kept
        ]
        return Snapshot(cut, self.stamp, (self.versions[r.i] for r in kept), (self.ctimes[r.i] for r in kept))
