"""The note names an address is resolved against, held in memory and patched after each round.

A note address that is no literal path (every new note's `write_note`, every wikilink name) is
resolved against the path and aliases of every note (`service.graph.address`). Reading those
10,000 rows again after every index change cost 30-60 ms, and with agents writing all the time
the index changes all the time: under 32 agents it was a fifth of the server's CPU. Now the
first call reads them all, and later calls re-read only the paths the index rounds touched since
(`touched`); a bulk reconcile, or more than `MAX_TOUCHED` paths, asks for a full read again.
The held list is patched in place (a note changed, added, or replaced by the last one when
gone): making a new list of every note after each change cost ~1 ms at 100k notes per call.

Guarantees: a caller that waited for its own writes (`service.indexer.fresh`) finds them, since
the round that applied them registered its paths before the caller's wait ended, and a reader
that starts after that sees the committed rows. Reads are serialised by a lock, so a caller
never gets a list that a read in flight is still patching; a failed read forgets the cache.
Touches nothing but memory; the rows come from the loader the caller passes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Generic, Protocol, TypeVar

MAX_TOUCHED = 2000  # beyond this many changed paths one full read is cheaper than a long IN list


class Named(Protocol):
    @property
    def path(self) -> str: ...


N = TypeVar("N", bound=Named)
# Reads the names of these paths (absent ones are simply missing), or of every note for None.
Load = Callable[[Sequence[str] | None], Awaitable[list[N]]]


class NoteNames(Generic[N]):
    def __init__(self) -> None:
        self._at: dict[str, int] | None = None  # each held note's place in `_list` (None: never read)
        self._list: list[N] = []
        self._touched: set[str] | None = None  # None: everything may have changed
        self._lock = asyncio.Lock()
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

    async def get(self, load: Load[N]) -> list[N]:
        """Every note's names, read or patched as needed. The list is the one held: patched in
        place by a later `get`, so a caller that keeps it across an await copies it first."""
        async with self._lock:
            todo, at = self._touched, self._at
            if at is not None and todo is not None and not todo:
                return self._list
            self._touched = set()  # what rounds touch from here on is read next time
            try:
                if at is None or todo is None:
                    self._list = await load(None)
                    self._at = {n.path: i for i, n in enumerate(self._list)}
                    self.full_reads += 1
                else:
                    self._patch(at, todo, await load(sorted(todo)))
                    self.partial_reads += 1
            except BaseException:
                self._at, self._touched, self._list = None, None, []
                raise
            return self._list

    def _patch(self, at: dict[str, int], todo: set[str], fresh: list[N]) -> None:
        """The held list with the rows read again of the `todo` paths (`fresh`; a path without
        a row is gone): each one replaced, appended or moved out in its place, the last note
        taking a removed one's place (costs the touched paths, not a new list of every note)."""
        listed = self._list
        for note in fresh:
            i = at.get(note.path)
            if i is None:
                at[note.path] = len(listed)
                listed.append(note)
            else:
                listed[i] = note
        found = {n.path for n in fresh}
        for path in todo - found:
            i = at.pop(path, None)
            if i is None:
                continue
            last = listed.pop()
            if i < len(listed):
                listed[i] = last
                at[last.path] = i
