"""The notes a Bases query sees: one immutable snapshot of the index, already cut to what the
caller may read.

`Record` is one file (path, folder, stat facts, tags, raw frontmatter, outgoing links);
`Snapshot` holds the records of one vault with the lookups the evaluator needs: by path, link
resolution by name (Obsidian's shortest-path rule: an exact path first, then the only or the
first note with that base name), and backlinks. `visible` builds the caller's view: denied
records are dropped, and a link into a denied note stays unresolved, so a denied note shows up
nowhere (not as a row, a backlink, a resolved link or a count). Touches nothing: built by
`service.bases.source` from index rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class LinkRow:
    target: str  # as written, without subpath
    path: str | None  # resolved vault path
    alias: str | None
    embed: bool


@dataclass(slots=True)
class Record:
    path: str
    size: int
    ctime: float
    mtime: float
    tags: list[str]
    props: dict[str, Any]
    links: list[LinkRow]
    cache: dict[str, Any] = field(default_factory=dict)  # converted property values

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


def _strip_md(target: str) -> str:
    return target[:-3] if target.lower().endswith(".md") else target


class Snapshot:
    """Records of one vault plus link lookups; `visible` cuts it to one caller's read rights."""

    def __init__(self, records: list[Record], stamp: Any = None) -> None:
        self.records = records
        self.stamp = stamp
        self.versions: dict[str, tuple[Any, ...]] = {}  # note path -> (etag, mtime, ctime, size) read
        self.columns: dict[str, list[Any]] = {}  # property key -> its values in record order (query.fill)
        self.by_path: dict[str, Record] = {r.path: r for r in records}
        self._by_stem: dict[str, str] = {}
        self._by_name: dict[str, str] = {}
        for r in sorted(records, key=lambda r: (r.path.count("/"), r.path)):
            self._by_stem.setdefault(_strip_md(r.path).lower(), r.path)
            self._by_name.setdefault(_strip_md(r.name).lower(), r.path)
        self._backlinks: dict[str, list[str]] | None = None

    def resolve(self, target: str) -> str | None:
        """The path a link target points to (case-insensitive, '.md' optional), or None."""
        t = target.strip()
        if t in self.by_path:
            return t
        key = _strip_md(t.split("#", 1)[0]).lower().lstrip("/")
        if not key:
            return None
        return self._by_stem.get(key) or (self._by_name.get(key) if "/" not in key else None)

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
                r.ctime,
                r.mtime,
                r.tags,
                r.props,
                [
                    link
                    if link.path is None or link.path in allowed
                    else LinkRow(link.target, None, link.alias, link.embed)
                    for link in r.links
                ],
            )
            for r in kept
        ]
        return Snapshot(cut, self.stamp)
