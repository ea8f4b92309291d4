"""Louvain communities (modularity, resolution 1) of a `NoteGraph`'s undirected links, in Python
over flat arrays: the find_communities tool and the topic maps (`service.plane.topics`) group notes
with it.

- Nodes are numbers; a level's links are compressed rows (numpy), and its moves run over plain
  lists indexed by those numbers (one list of neighbours per node): no dict of dicts.
- A level's first sweep visits every node in an order shuffled with `seed`; after that only a
  node whose neighbour changed community is visited again (a queue of "dirty" nodes, as in
  Traag et al.'s Leiden paper's fast local moves), until none is left.
- Levels are merged with numpy (a community becomes a node; its inside links a self-loop).
- The same graph and seed give the same groups, in the same order (communities largest first,
  each sorted); `random` is never drawn from.
- A `Limit` is looked at every `CHECK_EVERY` node visits (tens of microseconds apart) and between
  the merge's numpy stages: a stop ends the work with `Stopped`; past the deadline the moves end
  with the partition so far (`cut`). Background work waits there while the server's calls run.
Measured on the standard vaults (docs/benchmarks.md, "Louvain in flat arrays").
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from service.graph.limit import NO_LIMIT, Limit

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    FloatArray = npt.NDArray[np.float64]
else:
    from service.numpy_lazy import np

    IntArray = FloatArray = Any

SEED = 0


class NoteGraph(Protocol):
    """What Louvain reads of a `service.graph.analytics.NoteGraph` (which imports this module)."""

    def __len__(self) -> int: ...

    def undirected(self) -> Any:
        """Compressed rows (`indptr`, `indices`) of the links both ways, each once."""
        ...


CHECK_EVERY = 32  # node visits between two looks at the `Limit` (a visit is a few microseconds)
ITERATIONS = 2  # the second starts its node moves from the first's partition
CHUNK = 1 << 16  # array entries turned into Python numbers at a time (a few ms)
EPS = 1e-12  # a move must gain more than this: float noise moves nothing


@dataclass(frozen=True, slots=True)
class Communities:
    groups: list[list[int]]  # node indices, each group sorted, largest group first
    modularity: float
    seed: int
    cut: bool = False  # the deadline ended it: the partition reached by then


@dataclass(frozen=True, eq=False)
class _Level:
    """One level's graph: entry e links rows[e] to cols[e] with weights[e] (None: each weighs 1,
    the link graph itself), rows ascending; both directions of a link are entries, a self-loop one."""

    n: int
    rows: IntArray
    cols: IntArray
    weights: FloatArray | None

    def degrees(self) -> FloatArray:
        found: FloatArray = np.bincount(self.rows, weights=self.weights, minlength=self.n).astype(np.float64)
        return found

    def lists(self, limit: Limit) -> tuple[list[int], list[int], list[float] | None]:
        """(row starts, columns, weights) as flat lists: the moves slice a node's neighbours out per
        visit (no list per node: 100k of them cost the collector more than the slices). Converted a
        chunk at a time, `limit` looked at between: a `tolist` holds the interpreter throughout."""
        ptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.rows, minlength=self.n), out=ptr[1:])
        cols: list[int] = []
        weights: list[float] | None = None if self.weights is None else []
        for at in range(0, self.cols.size, CHUNK):
            limit.up()
            cols += self.cols[at : at + CHUNK].tolist()
            if weights is not None and self.weights is not None:
                weights += self.weights[at : at + CHUNK].tolist()
        return ptr.tolist(), cols, weights


def _base(g: NoteGraph) -> _Level:
    """The undirected link graph, each link once per direction, no self-loop (a note linking
    itself is no link, as `NoteGraph.build` has it)."""
    und = g.undirected()
    rows = np.repeat(np.arange(len(g), dtype=np.int64), np.diff(und.indptr))
    cols = und.indices.astype(np.int64)
    other = rows != cols
    return _Level(len(g), rows[other], cols[other], None)


def _move_nodes(
    lists: tuple[list[int], list[int], list[float] | None],
    k: list[float],
    two_m: float,
    order: list[int],
    resolution: float,
    max_passes: int,
    limit: Limit,
    start: list[int] | None = None,
) -> tuple[list[int], bool]:
    """Louvain's first phase: each node joins the neighbouring community with the best modularity
    gain, first in `order`, then while a neighbour's move left a node dirty (at most `max_passes`
    visits per node on average). Starts from `start` (default: each node alone). Returns each
    node's community, and True when `limit`'s deadline ended it first (the partition so far)."""
    ptr, cols, weights = lists
    n = len(k)
    comm = list(range(n)) if start is None else start
    tot = list(k) if start is None else [0.0] * n
    if start is not None:
        for i, c in enumerate(start):
            tot[c] += k[i]
    queued = [True] * n
    queue = deque(order)
    pop, push = queue.popleft, queue.append
    visits, most = 0, max_passes * n
    while queue and visits < most:
        if visits % CHECK_EVERY == 0 and limit.up():
            return comm, True
        visits += 1
        i = pop()
        queued[i] = False
        ci, ki = comm[i], k[i]
        a, b = ptr[i], ptr[i + 1]
        row = cols[a:b]
        found: dict[int, float] = {}
        get = found.get
        if weights is None:  # the link graph: each link weighs 1, no self-loop
            for j in row:
                c = comm[j]
                found[c] = get(c, 0.0) + 1.0
        else:
            for j, w in zip(row, weights[a:b], strict=True):
                if j != i:  # a community's inside links: in its degree, not a neighbour
                    c = comm[j]
                    found[c] = get(c, 0.0) + w
        tot[ci] -= ki
        scale = resolution * ki / two_m
        best, gain = ci, get(ci, 0.0) - tot[ci] * scale
        for c, w in found.items():
            if (g := w - tot[c] * scale) > gain + EPS:
                best, gain = c, g
        tot[best] += ki
        if best != ci:
            comm[i] = best
            for j in row:
                if not queued[j] and comm[j] != best:
                    queued[j] = True
                    push(j)
    return comm, False


def _merge(level: _Level, label: IntArray, count: int, limit: Limit) -> _Level:
    """The next level: each community (`label` of each node, `count` of them) one node, the
    weights of the links between two communities summed (those inside one: its self-loop).
    Sorts, not `np.unique(return_inverse=True)`: numpy lets the interpreter go while it sorts,
    not while it inverts (a 100k vault's 1.1M entries held it 0.1 s)."""
    key = label[level.rows] * count + label[level.cols]
    limit.up()  # only a stop ends the merge: the deadline is looked at by the moves
    if level.weights is None:
        key.sort()
        weights = None
    else:
        order = np.argsort(key)
        key, weights = key[order], level.weights[order]
    limit.up()
    first = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    keys = key[first]
    ones = np.diff(np.append(first, key.size)).astype(np.float64)  # the entries summed into each
    w = ones if weights is None else np.add.reduceat(weights, first)
    return _Level(count, keys // count, keys % count, w)


def _labels(g: NoteGraph, groups: list[list[int]]) -> IntArray:
    label = np.zeros(len(g), dtype=np.int64)
    for no, group in enumerate(groups):
        label[group] = no
    return label


def _modularity(base: _Level, label: IntArray, resolution: float) -> float:
    k = base.degrees()
    two_m = float(k.sum())
    if two_m == 0:
        return 0.0
    inside = float(np.count_nonzero(label[base.rows] == label[base.cols]))
    tot = np.bincount(label, weights=k)
    return inside / two_m - resolution * float(((tot / two_m) ** 2).sum())


def modularity(g: NoteGraph, groups: list[list[int]], resolution: float = 1.0) -> float:
    """Newman's modularity of `groups` (every node in one) on `g`'s undirected links, each of weight 1:
    the sum over groups of (2 × links inside) / 2m − resolution × (degrees summed / 2m)²."""
    return _modularity(_base(g), _labels(g, groups), resolution)


def communities(
    g: NoteGraph,
    seed: int = SEED,
    resolution: float = 1.0,
    max_levels: int = 10,
    max_passes: int = 20,
    limit: Limit = NO_LIMIT,
) -> Communities:
    """Louvain communities of the undirected link graph; a note without links is its own group.
    Past `limit`'s deadline the moves stop and the partition reached so far is the answer (`cut`)."""
    limit.up()
    base = _base(g)
    base_k = base.degrees()
    two_m = float(base_k.sum())
    member = np.arange(len(g), dtype=np.int64)  # original node -> its community
    rng = np.random.RandomState(seed)  # the legacy generator: the same stream in every numpy version
    base_lists = base.lists(limit)
    cut = False
    for it in range(ITERATIONS):
        level, k, lists = base, base_k, base_lists
        start = member.tolist() if it else None
        member = np.arange(len(g), dtype=np.int64)  # original node -> current super-node
        for _ in range(max_levels):
            if cut or level.cols.size == 0:
                break
            order = rng.permutation(level.n).tolist()
            comm, cut = _move_nodes(lists, k.tolist(), two_m, order, resolution, max_passes, limit, start)
            start = None
            found, label = np.unique(np.asarray(comm, dtype=np.int64), return_inverse=True)
            if found.size == level.n:
                break
            label = label.ravel()
            member = label[member]
            level = _merge(level, label, int(found.size), limit)
            k = level.degrees()
            lists = level.lists(limit)
        if cut:
            break
    limit.up()
    by = np.argsort(member, kind="stable")  # nodes by community, ascending within one
    sizes = np.bincount(member).tolist()
    ordered = by.tolist()
    groups, at = [], 0
    for size in sizes:
        if size:
            groups.append(ordered[at : at + size])
            at += size
    groups.sort(key=lambda grp: (-len(grp), grp[0]))
    return Communities(groups, _modularity(base, member, resolution), seed, cut)
