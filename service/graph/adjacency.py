"""The vault's resolved links held in memory as compact adjacency arrays, for graph walks
(GraphRAG) and the graph analytics' `NoteGraph`.

A breadth-first expansion asks for the neighbours of a few hundred notes per hop, and GraphRAG
for the backlink count of every note reached; one indexed query per batch of paths costs tens of
milliseconds at 60,000 links. `LinkGraph.load` reads every resolved link of a vault once (the
same links `GraphQueries.neighbors_of` selects: a note's distinct link targets, links to itself
left out; the notes' paths and the links' rows by number, deduplicated in arrays: a DISTINCT
over a join of the two tables took 8.5 s of the first graph call at 100k notes) and answers
`links` and `backlinks` from arrays.

Layout: every path that ends a link once (`paths`, sorted, each string held once, `ids` its
number) and the links as two CSR tables of int32 numbers (outlinks by source, backlinks by
target), ~8 bytes a link and ~150 bytes a path; at 100k notes and ~1M links this is ~25 MB,
where dictionaries of string lists (one string object per row end) held ~250 MB. The load
checks its `Limit`'s stop flag every few thousand rows (`Stopped`: its caller is gone).
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from service.gcpause import paused
from service.graph.csr import csr
from service.graph.expand import Direction
from service.obsidian.canvas import is_canvas_path

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from service.graph.analytics import Limit

    IntArray = npt.NDArray[np.int32]
else:
    from service.numpy_lazy import np

    IntArray = Any

_NOTES = "SELECT id, path FROM notes WHERE vault_id = ?"
_LINKS = "SELECT src_id, target_path FROM links WHERE vault_id = ? AND target_path IS NOT NULL"
_CHECK_ROWS = 4096  # rows between two looks at the stop flag


@dataclass(eq=False)
class LinkGraph:
    paths: list[str]  # every note a link starts or ends at, sorted
    ids: dict[str, int]  # path -> its number in `paths`
    out_ptr: IntArray  # outlinks of path i: out_idx[out_ptr[i]:out_ptr[i + 1]] (ascending numbers)
    out_idx: IntArray
    in_ptr: IntArray  # backlinks of path i, alike
    in_idx: IntArray

    @classmethod
    def from_edges(cls, edges: Iterable[tuple[str, str]]) -> LinkGraph:
        """From (source, target) pairs; duplicates merged, self-links dropped."""
        ids: dict[str, int] = {}
        pairs = list(edges)
        src = [ids.setdefault(a, len(ids)) for a, _ in pairs]
        dst = [ids.setdefault(b, len(ids)) for _, b in pairs]
        return cls._numbered(ids, src, dst)

    @classmethod
    def load(cls, conn: sqlite3.Connection, vault_id: str, limit: Limit | None = None) -> LinkGraph:
        """Every resolved link of the vault: the notes' numbers first, then the links as (source
        number, target path) rows, each target looked up (its string dropped at once), with
        the cyclic collector paused (its full passes over every object held the event loop).
        Both reads are one snapshot of the index (one read transaction)."""
        began = not conn.in_transaction
        if began:
            conn.execute("BEGIN")
        try:
            return cls._load(conn, vault_id, limit)
        finally:
            if began and conn.in_transaction:
                conn.execute("ROLLBACK")  # read only: nothing to keep

    @classmethod
    def _load(cls, conn: sqlite3.Connection, vault_id: str, limit: Limit | None) -> LinkGraph:
        with paused():
            ids: dict[str, int] = {}
            number: dict[int, int] = {}
            for row, (n, p) in enumerate(conn.execute(_NOTES, (vault_id,))):
                if limit is not None and row % _CHECK_ROWS == 0:
                    limit.up()
                number[int(n)] = ids.setdefault(str(p), len(ids))
            src: list[int] = []
            dst: list[int] = []
            for row, (note, target) in enumerate(conn.execute(_LINKS, (vault_id,))):
                if limit is not None and row % _CHECK_ROWS == 0:
                    limit.up()
                a = number.get(note)
                if a is not None:  # None: a link of a note outside the vault's rows (never, one snapshot)
                    b = ids.get(target)
                    src.append(a)
                    dst.append(b if b is not None else ids.setdefault(str(target), len(ids)))
            return cls._numbered(ids, src, dst)

    @classmethod
    def _numbered(cls, ids: dict[str, int], src: list[int], dst: list[int]) -> LinkGraph:
        """Number the paths in sorted order (neighbour lists come out in path order), keep only
        the paths links touch and the distinct links between two different paths."""
        first = sorted(ids)
        rank = np.empty(len(ids), dtype=np.int64)
        rank[np.fromiter((ids[p] for p in first), dtype=np.int64, count=len(ids))] = np.arange(len(ids))
        s, d = rank[np.asarray(src, dtype=np.int64)], rank[np.asarray(dst, dtype=np.int64)]
        s, d = s[s != d], d[s != d]
        used = np.union1d(s, d)  # sorted: the paths that end a link, in path order
        paths = [first[i] for i in used.tolist()]
        s, d = np.searchsorted(used, s), np.searchsorted(used, d)
        n = max(len(paths), 1)
        key = np.unique(s * n + d)  # distinct, by (source, target)
        s, d = key // n, key % n
        out_ptr, out_idx = csr(len(paths), s, d)
        in_ptr, in_idx = csr(len(paths), d, s)
        return cls(paths, {p: i for i, p in enumerate(paths)}, out_ptr, out_idx, in_ptr, in_idx)

    def __len__(self) -> int:
        return len(self.paths)

    @property
    def size(self) -> int:
        """Distinct links."""
        return int(self.out_idx.size)

    @functools.cached_property
    def canvases(self) -> list[str]:
        """The canvases among `paths` (a link starts or ends at each), by path."""
        return [p for p in self.paths if is_canvas_path(p)]

    def numbered(self) -> tuple[list[str], IntArray, IntArray]:
        """(paths, source numbers, target numbers) of every link, by source then target."""
        counts = np.diff(self.out_ptr)
        return self.paths, np.repeat(np.arange(len(self.paths), dtype=np.int32), counts), self.out_idx

    def _row(self, ptr: IntArray, idx: IntArray, path: str) -> list[str]:
        i = self.ids.get(path)
        if i is None:
            return []
        paths = self.paths
        return [paths[j] for j in idx[ptr[i] : ptr[i + 1]].tolist()]

    def outlinks(self, path: str) -> list[str]:
        """The distinct notes `path` links to (links to itself left out), by path."""
        return self._row(self.out_ptr, self.out_idx, path)

    def backlinks(self, path: str) -> list[str]:
        """The distinct notes linking to `path` (links to itself left out), by path."""
        return self._row(self.in_ptr, self.in_idx, path)

    def links(self, path: str) -> list[tuple[str, Direction]]:
        """The notes linking to `path` ('backlink'), then those it links to ('outlink')."""
        back: list[tuple[str, Direction]] = [(other, "backlink") for other in self.backlinks(path)]
        return back + [(other, "outlink") for other in self.outlinks(path)]
