"""The vault's resolved links held in memory as adjacency lists, for graph walks (GraphRAG).

A breadth-first expansion asks for the neighbours of a few hundred notes per hop, and GraphRAG
for the backlink count of every note reached; one indexed query per batch of paths costs tens of
milliseconds at 60,000 links. `LinkGraph.load` reads every resolved link of a vault once (one
query, the same rows `GraphQueries.neighbors_of` selects: a note's distinct link targets, links
to itself left out) and answers `links` and `backlinks` from dictionaries. `LinkGraphs` keeps
one graph per vault indexer for the index generation it was read at: the next walk after any
index change reads it again. Reads the index (`links`, `notes`).
"""

from __future__ import annotations

import sqlite3
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

from service.graph.expand import Direction

_EDGES = (
    "SELECT DISTINCT s.path, l.target_path FROM links l JOIN notes s ON s.id = l.src_id "
    "WHERE l.vault_id = ? AND l.target_path IS NOT NULL AND l.target_path != s.path"
)


@dataclass
class LinkGraph:
    outlinks: dict[str, list[str]] = field(default_factory=dict)  # source -> targets
    inlinks: dict[str, list[str]] = field(default_factory=dict)  # target -> sources

    @classmethod
    def load(cls, conn: sqlite3.Connection, vault_id: str) -> LinkGraph:
        graph = cls()
        for src, dst in conn.execute(_EDGES, (vault_id,)):
            graph.outlinks.setdefault(str(src), []).append(str(dst))
            graph.inlinks.setdefault(str(dst), []).append(str(src))
        return graph

    def links(self, path: str) -> list[tuple[str, Direction]]:
        """The notes linking to `path` ('backlink'), then those it links to ('outlink')."""
        back: list[tuple[str, Direction]] = [(other, "backlink") for other in self.inlinks.get(path, ())]
        return back + [(other, "outlink") for other in self.outlinks.get(path, ())]

    def backlinks(self, path: str) -> list[str]:
        """The distinct notes linking to `path` (links to itself left out)."""
        return self.inlinks.get(path, [])


class LinkGraphs:
    """One `LinkGraph` per vault indexer (weakly held: a closed vault's graph goes with it), kept
    while the index generation it was read at is current and callers ask for it (`release_idle`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._graphs: weakref.WeakKeyDictionary[Any, tuple[int, LinkGraph]] = weakref.WeakKeyDictionary()
        self._used: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()  # last asked, monotonic

    def get(self, conn: sqlite3.Connection, vault_id: str, indexer: Any) -> LinkGraph:
        """The graph at `indexer.generation` (anything with a `generation`: the vault's indexer)."""
        generation = int(indexer.generation)
        with self._lock:
            found = self._graphs.get(indexer)
            if found is not None and found[0] == generation:
                self._used[indexer] = time.monotonic()
                return found[1]
        graph = LinkGraph.load(conn, vault_id)
        with self._lock:
            self._graphs[indexer] = (generation, graph)
            self._used[indexer] = time.monotonic()
        return graph

    def release_idle(self, idle_s: float) -> int:
        """Drop the graphs no caller has asked for in `idle_s` seconds (the next one loads its
        vault's again); how many were dropped."""
        cutoff = time.monotonic() - idle_s
        with self._lock:
            idle = [key for key, used in self._used.items() if used <= cutoff]
            for key in idle:
                self._graphs.pop(key, None)
                del self._used[key]
        return len(idle)
