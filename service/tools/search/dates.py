"""search domain, dates: the modification-date filters the search tools share.

`modified_after` / `modified_before` mean one thing in every tool that takes them
(search_semantic, search_hybrid, find_similar, search_notes, search_vault): a note modified at or
after / before the ISO date or time (UTC when it has no zone; a date is its midnight). `Window`
holds the two bounds as Unix seconds: a semantic `NoteFilter` takes them as `after` / `before`,
a complete ranking of notes is cut with `Window.keep`, and a ranking that asks `can_read` of each
hit (search_text, search_regex, the metadata searches) takes `Window.readable`: the caller's
permission and the dates in one predicate.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from pydantic import Field

T = TypeVar("T")

DateArg = dt.datetime | dt.date | None
AFTER_FIELD: Any = Field(
    default=None, description="Only notes modified at or after this ISO date/time (UTC when no zone)."
)
BEFORE_FIELD: Any = Field(default=None, description="Only notes modified before this ISO date/time (UTC when no zone).")


def stamp(value: DateArg) -> float | None:
    """`value` as Unix seconds (a date: its midnight; no zone: UTC)."""
    if value is None:
        return None
    if not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day)
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.timestamp()


@dataclass(frozen=True, slots=True)
class Window:
    """Modification times at or after `after` and before `before` (Unix seconds; None: open)."""

    after: float | None = None
    before: float | None = None

    @classmethod
    def of(cls, after: DateArg, before: DateArg) -> Window | None:
        """The window of the two arguments; None when neither is given."""
        if after is None and before is None:
            return None
        return cls(stamp(after), stamp(before))

    def holds(self, mtime: float) -> bool:
        return (self.after is None or mtime >= self.after) and (self.before is None or mtime < self.before)

    def keep(self, hits: Iterable[T], mtime: Callable[[T], float]) -> list[T]:
        """`hits` (in their order) whose notes were modified in the window."""
        return [h for h in hits if self.holds(mtime(h))]

    def readable(self, conn: sqlite3.Connection, vault_id: str, can_read: Callable[[str], bool]) -> DatedReadable:
        """`can_read`, also refusing the notes modified outside the window (read on `conn`)."""
        clauses: list[str] = []
        params: list[Any] = [vault_id]
        if self.after is not None:
            clauses.append("mtime >= ?")
            params.append(self.after)
        if self.before is not None:
            clauses.append("mtime < ?")
            params.append(self.before)
        where = "".join(f" AND {c}" for c in clauses)
        rows = conn.execute(f"SELECT path FROM notes WHERE vault_id = ?{where}", params)
        return DatedReadable(can_read, {str(r[0]) for r in rows})


class Dated(Protocol):
    @property
    def mtime(self) -> float: ...


D = TypeVar("D", bound=Dated)


def within(hits: list[D], window: Window | None) -> list[D]:
    """`hits` (in their order) modified in `window`; all of them when there is none."""
    return hits if window is None else window.keep(hits, lambda h: h.mtime)


def window_key(window: Window | None) -> tuple[Any, ...]:
    """What a query key (`search_common.query_key`) adds for `window`: nothing without one, so
    the cursors of a search without dates stay as they were."""
    return () if window is None else ((window.after, window.before),)


class DatedReadable:
    """A `can_read` (`search_common.Readable`) narrowed to the paths of a date window. Not
    `everything`: a ranking that skips asking per note when no rule can deny one asks here."""

    everything = False

    def __init__(self, can_read: Callable[[str], bool], paths: set[str]) -> None:
        self._can_read = can_read
        self._paths = paths

    def __call__(self, path: str) -> bool:
        return path in self._paths and self._can_read(path)

    def drop(self, paths: Iterable[str]) -> None:
        """Treat `paths` as unreadable from now on (their files are gone)."""
        self._paths.difference_update(paths)
        drop = getattr(self._can_read, "drop", None)
        if drop is not None:
            drop(paths)
