"""Every vault file the index knows (notes and attachments), with the files under a folder found
by a range of a sorted list.

A deletion the watcher reports for a path the index does not hold is a folder deleted or renamed
away (it sees only the folder), or a file the index never held (a temporary file, a file left
out); a folder moved in expands to what was under its old name. Each asked for the files under a
folder, and a test of every known path cost ~9 ms at 100k files, per such event. `KnownFiles`
keeps the paths sorted, so the files under a folder are one binary search and a
slice (their count, not the vault's). Kept in step by `add` and `discard`: one path by insertion,
many at once by a merge or a filter of the list (a folder of thousands moved in or out costs
one pass, not one memory move per file). The sorted list is made by the start's scan, which
sorts the paths for the link-resolution index anyway (`scan.scan_with_paths`).

Touches nothing but memory; used on the event loop only.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator

MANY = 32  # paths from which one pass over the list is cheaper than a memory move per path


class KnownFiles:
    """The paths in one sorted list; membership is a binary search in it. A set beside the list
    answered membership ~0.5 µs sooner, asked a few times per watched change, for 4 MB at 100k
    files (tracemalloc)."""

    def __init__(self, ordered: list[str] | None = None) -> None:
        """`ordered`: the paths, sorted and each once (the list is kept, not copied)."""
        self._sorted: list[str] = [] if ordered is None else ordered

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        listed = self._sorted
        i = bisect.bisect_left(listed, path)
        return i < len(listed) and listed[i] == path

    def __iter__(self) -> Iterator[str]:
        return iter(self._sorted)

    def __len__(self) -> int:
        return len(self._sorted)

    def ordered(self) -> list[str]:
        """Every path, sorted (a copy)."""
        return list(self._sorted)

    def under(self, folder: str) -> list[str]:
        """The files under `folder` (at any depth), sorted."""
        prefix = folder.rstrip("/") + "/"
        listed = self._sorted
        start = bisect.bisect_left(listed, prefix)
        end = bisect.bisect_left(listed, prefix[:-1] + "0", start)  # "0" follows "/"
        return listed[start:end]

    def add(self, paths: Iterable[str]) -> None:
        new = sorted({p for p in paths if p not in self})
        if not new:
            return
        if len(new) < MANY:
            for path in new:
                bisect.insort(self._sorted, path)
        else:  # two sorted runs: the sort merges them in one pass
            self._sorted += new
            self._sorted.sort()

    def discard(self, paths: Iterable[str]) -> None:
        gone = {p for p in paths if p in self}
        if not gone:
            return
        if len(gone) < MANY:
            listed = self._sorted
            for path in gone:
                del listed[bisect.bisect_left(listed, path)]
        else:
            self._sorted = [p for p in self._sorted if p not in gone]
