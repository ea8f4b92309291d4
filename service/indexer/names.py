"""The note names an address is resolved against, held in memory and patched after each round.

A note address that is no literal path (every new note's `write_note`, every wikilink name) is
resolved against the path and aliases of every note (`service.graph.address`). Reading those
10,000 rows again after every index change cost 30-60 ms, and with agents writing all the time
the index changes all the time: under 32 agents it was a fifth of the server's CPU. Now the
first call reads them all, and later calls re-read only the paths the index rounds touched since
(`touched`); a bulk reconcile, or more than `MAX_TOUCHED` paths, asks for a full read again.
The held list is kept sorted by path and patched in place (a note changed where it is, added or
removed at its place found by binary search, many at once in one pass): making a new list of
every note after each change cost ~1 ms at 100k notes per call, and a dict of each note's place
in the list, which patched it before, held ~6 MB at 100k notes for good (tracemalloc).

While a first index is built into an empty index (a cold load: 2-3 min at 100k notes), an
address is resolved against the notes on disk too, which the index does not hold yet: each call
listed the vault (0.2-0.6 s at 100k files) and, since every stored batch asked for a full read,
read every stored name again (0.7 s at 25k stored, 2 cores busy with the load), so a
`create_note` then took 1.5-3.5 s. Now such a load hands the list every note the scan found
(`seed`, without aliases: the index holds none yet) and the names of each batch it stores
(`stored`: an alias each note has), and says the list holds the notes on disk (`with_files`),
so a call reads nothing proportional to the vault. A full read (more than `MAX_TOUCHED` paths
touched, the end of the load, a failure) reads the index only, and `with_files` says so.

Guarantees: a caller that waited for its own writes (`service.indexer.fresh`) finds them, since
the round that applied them registered its paths before the caller's wait ended, and a reader
that starts after that sees the committed rows. Reads are serialised by a lock, so a caller
never gets a list that a read in flight is still patching; a failed read forgets the cache.
Touches nothing but memory; the rows come from the loader the caller passes.
"""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Generic, Protocol, TypeVar

MAX_TOUCHED = 2000  # beyond this many changed paths one full read is cheaper than a long IN list
MANY = 32  # touched paths from which one pass over the list is cheaper than a memory move per path


class Named(Protocol):
    @property
    def path(self) -> str: ...


N = TypeVar("N", bound=Named)
# Reads the names of these paths (absent ones are simply missing), or of every note for None.
Load = Callable[[Sequence[str] | None], Awaitable[list[N]]]


def _path(note: Named) -> str:
    return note.path


class NoteNames(Generic[N]):
    def __init__(self) -> None:
        self._read = False  # the list was read whole once (and not forgotten since)
        self._list: list[N] = []  # sorted by path
        self._touched: set[str] | None = None  # None: everything may have changed
        self._lock = asyncio.Lock()
        # The list holds the notes on disk the index does not hold yet too (`seed`); a full read
        # holds the index's notes only.
        self.with_files = False
        self._holding: list[N] | None = None  # `holding`'s notes, until the list changes
        self.full_reads = 0
        self.partial_reads = 0

    def touched(self, paths: Iterable[str] | None) -> None:
        """An index round committed changes to these paths' rows (None: to any row)."""
        if paths is None or self._touched is None:
            self._touched = None
            return
        self._touched.update(paths)
        if len(self._touched) > MAX_TOUCHED:
            self._touched = None

    async def seed(self, notes: list[N]) -> None:
        """A cold load's start: `notes` (sorted by path) are every note on disk, the index none yet."""
        async with self._lock:
            self._list, self._read, self._touched, self.with_files = notes, True, set(), True
            self._holding = None

    def stored(self, notes: Sequence[N], paths: Iterable[str]) -> None:
        """A load stored the notes of `paths`; `notes`: the names of those that have an alias, as
        their rows hold them. Into a seeded list they go at once, each in its place (every other
        stored note is held as seeded: a path and no alias); otherwise, or while a read is
        patching the list, the paths are touched (read again at the next `get`)."""
        if not self.with_files or self._lock.locked() or self._touched is None:
            self.touched(paths)
            return
        listed = self._list
        for note in notes:  # a stored note is on disk: held already, replaced where it is
            i = bisect.bisect_left(listed, note.path, key=_path)
            if i < len(listed) and listed[i].path == note.path:
                listed[i] = note
            else:
                listed.insert(i, note)
                self._holding = None

    async def get(self, load: Load[N]) -> list[N]:
        """Every note's names, read or patched as needed. The list is the one held: patched in
        place by a later `get`, so a caller that keeps it across an await copies it first."""
        async with self._lock:
            todo = self._touched
            if self._read and todo is not None and not todo:
                return self._list
            self._touched = set()  # what rounds touch from here on is read next time
            try:
                if not self._read or todo is None:
                    # Let go of the held list first: not two lists of every note at once (~14 MB at 100k).
                    self._read, self.with_files, self._list = False, False, []
                    self._list = await load(None)
                    self._list.sort(key=_path)  # the rows come in the table's order, near sorted
                    self._read = True
                    self.full_reads += 1
                else:
                    self._patch(todo, await load(sorted(todo)))
                    self.partial_reads += 1
                self._holding = None  # `holding` may have been asked during the read
            except BaseException:
                self._read, self._touched, self._list, self.with_files = False, None, [], False
                self._holding = None
                raise
            return self._list

    def holding(self) -> list[N]:
        """The held notes whose path holds '#' or '|', which a bare name holding one may name
        (`service.graph.address.or_by_name`, by their paths): found once per change of the list,
        not per call (a scan of every note's path took ~3 ms at 13k notes, ~20 ms at 100k)."""
        if self._holding is None:
            self._holding = [n for n in self._list if "#" in n.path or "|" in n.path]
        return self._holding

    def _patch(self, todo: set[str], fresh: list[N]) -> None:
        """The held list with the rows read again of the `todo` paths (`fresh`; a path without
        a row is gone): each one replaced, inserted or removed at its place, or, for many, the
        list made again in one pass (costs the touched paths, or one pass: not a read of all)."""
        listed = self._list
        rows = {n.path: n for n in fresh}
        if len(todo) >= MANY:
            kept = [n for n in listed if n.path not in todo]
            kept += rows.values()
            kept.sort(key=_path)
            listed[:] = kept
            return
        for path in sorted(todo):
            i = bisect.bisect_left(listed, path, key=_path)
            held = i < len(listed) and listed[i].path == path
            note = rows.get(path)
            if note is None:
                if held:
                    del listed[i]
            elif held:
                listed[i] = note
            else:
                listed.insert(i, note)
