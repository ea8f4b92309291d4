"""Graph analytics over a vault's link graph: central notes, communities and
notes that share neighbours. Pure functions over a `NoteGraph`; no index, no ACL, no tool context.

A `NoteGraph` is built from the index's resolved links (a `LinkGraph`'s arrays, or any pairs)
and the notes, a `keep` predicate applied first: a note it refuses is no node and no edge
touches it (the graph tools pass the caller's read decision). Nodes are sorted by path and
edges deduplicated: the same vault gives the same numbers, in the same order, on every run.

- `pagerank`: power iteration, damping 0.85, the rank of notes without outlinks spread over all
  notes, until the L1 change is under `tol` (at most `max_iter` rounds). Scores sum to 1.
- `betweenness`: Brandes over the undirected graph (or the directed one), normalised to 0..1 as
  for networkx (`normalized=True`). Exact when the graph has at most `max_sources` notes; else
  from the first `max_sources` notes of an order shuffled with `seed`, scaled by n / sources
  (`Betweenness.exact` says which). Each source's BFS runs level by level on numpy arrays.
- shortest link paths: `service.graph.paths`.
- `communities`: Louvain (modularity, resolution 1) on the undirected graph, nodes visited in an
  order shuffled with `seed`; communities largest first (`service.graph.louvain`, re-exported here).
- A `Limit` (`service.graph.limit`, re-exported here) bounds the long ones (betweenness, Louvain,
  PageRank, `from_links`): its `stop` flag (the call was cancelled, the server stops) ends
  the work with `Stopped` at the next source, node, round or stage; past its deadline betweenness
  ends with the sources done so far (an estimate) and Louvain with the partition so far, each saying
  `cut` (a thread cannot be killed).
- `adamic_adar`: notes two links away that share neighbours with a note (not linked to it),
  scored by the sum of 1 / log(degree) of the shared neighbours.
Costs at 10k notes and ~50k links (docs/tools-guide.md, "Graph analytics"): tens of ms for
PageRank, under a second for the sampled betweenness, a few tenths of one for Louvain.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from service.graph.csr import csr
from service.graph.limit import NO_LIMIT as NO_LIMIT
from service.graph.limit import Limit as Limit
from service.graph.limit import Stopped as Stopped
from service.graph.louvain import Communities as Communities
from service.graph.louvain import communities as communities
from service.graph.louvain import modularity as modularity

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    Int32Array = npt.NDArray[np.int32]  # the CSR tables (`adjacency.csr`)
    FloatArray = npt.NDArray[np.float64]
else:
    from service.numpy_lazy import np

    IntArray = Int32Array = FloatArray = Any  # annotations only: numpy is imported at its first use

DAMPING = 0.85
MAX_SOURCES = 256  # betweenness: exact up to this many notes, sampled sources above
SEED = 0


def is_note(path: str) -> bool:
    """A Markdown note (links also reach attachments and canvases, which are no notes here)."""
    return path.lower().endswith(".md")


@dataclass(frozen=True, eq=False)
class _Csr:
    indptr: Int32Array
    indices: Int32Array

    def row(self, i: int) -> Int32Array:
        return self.indices[self.indptr[i] : self.indptr[i + 1]]


def _csr(n: int, src: IntArray, dst: IntArray) -> _Csr:
    return _Csr(*csr(n, src, dst))  # the link graph's builder (int32)


@dataclass(eq=False)
class NoteGraph:
    """Notes (sorted paths) and their distinct links between different notes, as index arrays."""

    nodes: list[str]
    src: IntArray  # edge i links nodes[src[i]] -> nodes[dst[i]]
    dst: IntArray
    index: dict[str, int] = field(init=False)
    _cache: dict[str, object] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.index = {p: i for i, p in enumerate(self.nodes)}

    @classmethod
    def build(
        cls,
        edges: Iterable[tuple[str, str]],
        notes: Iterable[str] = (),
        keep: Callable[[str], bool] | None = None,
    ) -> NoteGraph:
        """The graph of `notes` and the ends of `edges` that are notes `keep` admits (default:
        all), with the edges between two of them (self-links dropped, duplicates merged)."""
        pairs = [(a, b) for a, b in edges if a != b and is_note(a) and is_note(b)]
        names = {p for p in notes if is_note(p)}
        names.update(a for a, _ in pairs)
        names.update(b for _, b in pairs)
        if keep is not None:
            names = {p for p in names if keep(p)}
        nodes = sorted(names)
        index = {p: i for i, p in enumerate(nodes)}
        found = {(index[a], index[b]) for a, b in pairs if a in index and b in index}
        ordered = sorted(found)
        src = np.fromiter((a for a, _ in ordered), dtype=np.int64, count=len(ordered))
        dst = np.fromiter((b for _, b in ordered), dtype=np.int64, count=len(ordered))
        return cls(nodes, src, dst)

    @classmethod
    def from_links(
        cls,
        links: tuple[list[str], npt.NDArray[Any], npt.NDArray[Any]],
        notes: Iterable[str] = (),
        keep: Callable[[str], bool] | None = None,
        limit: Limit = NO_LIMIT,
    ) -> NoteGraph:
        """`build` from numbered links (paths, source and target numbers: a `LinkGraph`'s `numbered`),
        with no string pair per link: the same nodes and edges."""
        limit.up()  # `Stopped` when its caller is gone: here and between every stage
        paths, src, dst = links
        is_md = np.fromiter((is_note(p) for p in paths), dtype=bool, count=len(paths))
        limit.up()
        both = is_md[src] & is_md[dst]
        src, dst = src[both], dst[both]
        names = {p for p in notes if is_note(p)}
        limit.up()
        names.update(paths[i] for i in np.union1d(src, dst).tolist())
        if keep is not None:
            limit.up()
            names = {p for p in names if keep(p)}
        limit.up()
        nodes = sorted(names)
        index = {p: i for i, p in enumerate(nodes)}
        limit.up()
        remap = np.fromiter((index.get(p, -1) for p in paths), dtype=np.int64, count=len(paths))
        limit.up()
        s, d = remap[src], remap[dst]
        kept = (s >= 0) & (d >= 0)  # both paths sorted: the links stay distinct and by (source, target)
        return cls(nodes, s[kept], d[kept])

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def links(self) -> int:
        return int(self.src.size)

    def memo(self, key: str, make: Callable[[], object]) -> object:
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = make()
        return found

    def out_csr(self) -> _Csr:
        return self.memo("out", lambda: _csr(len(self), self.src, self.dst))  # type: ignore[return-value]

    def in_csr(self) -> _Csr:
        return self.memo("in", lambda: _csr(len(self), self.dst, self.src))  # type: ignore[return-value]

    def undirected(self) -> _Csr:
        def make() -> _Csr:
            both = np.unique(np.concatenate([self.src * len(self) + self.dst, self.dst * len(self) + self.src]))
            n = max(len(self), 1)
            # `both` is sorted by (row, column) already: `_csr`'s lexsort would only repeat it
            # (0.25 s of CPU at 100k notes, holding the interpreter)
            indptr = np.zeros(len(self) + 1, dtype=np.int32)
            np.cumsum(np.bincount(both // n, minlength=len(self)), out=indptr[1:])
            return _Csr(indptr, (both % n).astype(np.int32))

        return self.memo("und", make)  # type: ignore[return-value]

    def degrees(self) -> tuple[IntArray, IntArray]:
        """(links in, links out) of every node."""
        n = len(self)
        return np.bincount(self.dst, minlength=n), np.bincount(self.src, minlength=n)


def pagerank(
    g: NoteGraph, damping: float = DAMPING, tol: float = 1e-10, max_iter: int = 200, limit: Limit = NO_LIMIT
) -> FloatArray:
    """PageRank of every node (index order); sums to 1. Stops (`Stopped`) with `limit.stop`; the
    deadline does not cut it (a round is a few vector operations: 100k notes take well under a second)."""
    n = len(g)
    if n == 0:
        return np.zeros(0)
    out_deg = np.bincount(g.src, minlength=n).astype(np.float64)
    dangling = out_deg == 0
    share = np.zeros(g.links)
    rank = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        limit.up()
        np.divide(rank[g.src], out_deg[g.src], out=share)
        spread = np.bincount(g.dst, weights=share, minlength=n)
        new = (1.0 - damping) / n + damping * (spread + rank[dangling].sum() / n)
        change = float(np.abs(new - rank).sum())
        rank = new
        if change < tol:
            break
    out: FloatArray = rank / float(rank.sum())
    return out


@dataclass(frozen=True, slots=True)
class Betweenness:
    scores: FloatArray  # normalised, index order
    exact: bool
    sources: int  # BFS sources used (all nodes when exact)
    seed: int
    cut: bool = False  # the deadline ended it before `max_sources` sources


def _ranges(csr: _Csr, rows: IntArray) -> tuple[IntArray, IntArray]:
    """(row of each entry, column) of every entry of `rows` in `csr`, in order."""
    starts = csr.indptr[rows]
    lens = csr.indptr[rows + 1] - starts
    total = int(lens.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(total)
    return np.repeat(rows, lens), csr.indices[offsets].astype(np.int64, copy=False)  # int64 downstream, as before


def _dependencies(csr: _Csr, n: int, source: int) -> FloatArray:
    """Brandes' dependency of `source` on every node: BFS by levels, then back-propagation."""
    dist = np.full(n, -1, dtype=np.int64)
    sigma = np.zeros(n)
    dist[source], sigma[source] = 0, 1.0
    frontier = np.array([source], dtype=np.int64)
    levels: list[tuple[IntArray, IntArray]] = []  # per level, the shortest-path edges (parent, child)
    depth = 0
    while frontier.size:
        parent, child = _ranges(csr, frontier)
        fresh = child[dist[child] == -1]
        dist[fresh] = depth + 1
        keep = dist[child] == depth + 1
        parent, child = parent[keep], child[keep]
        sigma += np.bincount(child, weights=sigma[parent], minlength=n)
        levels.append((parent, child))
        frontier = np.unique(fresh)
        depth += 1
    delta = np.zeros(n)
    for parent, child in reversed(levels):
        delta += np.bincount(parent, weights=sigma[parent] / sigma[child] * (1.0 + delta[child]), minlength=n)
    delta[source] = 0.0
    return delta


def betweenness(
    g: NoteGraph, max_sources: int = MAX_SOURCES, seed: int = SEED, directed: bool = False, limit: Limit = NO_LIMIT
) -> Betweenness:
    """Betweenness centrality of every node (index order), exact or from sampled sources: the
    first `max_sources` of the nodes shuffled with `seed`, so a run the deadline cut after k
    sources is the estimate from the same first k sources (at least one)."""
    n = len(g)
    if n == 0:
        return Betweenness(np.zeros(0), True, 0, seed)
    csr = g.out_csr() if directed else g.undirected()
    sources = np.random.default_rng(seed).permutation(n)[:max_sources]
    total = np.zeros(n)
    done = 0
    for s in sources:
        if limit.up() and done:
            break
        total += _dependencies(csr, n, int(s))
        done += 1
    exact = done == n
    if not exact:
        total *= n / done
    if n > 2:  # undirected, each pair is counted from both ends: over twice the (n-1)(n-2)/2 pairs
        total /= (n - 1) * (n - 2)
    return Betweenness(total, exact, done, seed, cut=done < len(sources))


def adamic_adar(g: NoteGraph, node: str, limit: int = 10) -> list[tuple[str, float, list[str]]]:
    """Notes not linked with `node` (either way) that share neighbours with it, best first: (path,
    score, the shared neighbours by path). Score: sum of 1 / log(degree) of the shared ones."""
    und = g.undirected()
    a = g.index[node]
    near = {int(v) for v in und.row(a)}
    degree = np.diff(und.indptr)
    score: dict[int, float] = {}
    shared: dict[int, list[int]] = {}
    for z in sorted(near):
        weight = 1.0 / math.log(int(degree[z])) if degree[z] > 1 else 0.0
        for v in und.row(z):
            v = int(v)
            if v != a and v not in near:
                score[v] = score.get(v, 0.0) + weight
                shared.setdefault(v, []).append(z)
    best = sorted(score, key=lambda v: (-score[v], g.nodes[v]))[:limit]
    return [(g.nodes[v], score[v], [g.nodes[z] for z in shared[v]]) for v in best]
