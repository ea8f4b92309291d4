"""Shortest link paths over a vault's link graph (`NoteGraph`, `service.graph.analytics`).

`shortest_path`: breadth first, neighbours in path order, so among equally short paths the one
through the alphabetically first notes is returned; `None` when there is none. The graph holds
Markdown notes only; a canvas, a base or an image at an end of the path is joined by the links it
has (`extra`: a canvas's links out, the notes linking to the file), so a path runs from a note
through the canvas that lists it, or to the base a note embeds. Pure functions: no index, no ACL.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING

from service.graph.expand import Direction, Step

if TYPE_CHECKING:
    from service.graph.analytics import NoteGraph


def shortest_path(
    g: NoteGraph, source: str, target: str, directed: bool = False, extra: Sequence[tuple[str, str]] = ()
) -> list[Step] | None:
    """The fewest links from `source` to `target`, as steps (an 'outlink' step follows a link, a
    'backlink' step goes against one; only outlinks when `directed`); [] when they are the same
    note, None when no path joins them. Both must be nodes (KeyError otherwise), unless `extra`
    gives links (linking, linked) of files that are no nodes (a canvas, a base, an image at an
    end of the path): then the search goes through those links too (`_path_with`)."""
    if extra:
        return _path_with(g, source, target, directed, extra)
    a, b = g.index[source], g.index[target]
    if a == b:
        return []
    out, back = g.out_csr(), g.in_csr()
    came: dict[int, tuple[int, Direction]] = {a: (a, "outlink")}
    queue = deque([a])
    while queue and b not in came:
        node = queue.popleft()
        ways: list[tuple[int, Direction]] = [(int(v), "outlink") for v in out.row(node)]
        if not directed:
            ways += [(int(v), "backlink") for v in back.row(node)]
            ways.sort(key=lambda w: (w[0], w[1] != "outlink"))  # linked both ways: reached along the link
        for other, way in ways:
            if other not in came:
                came[other] = (node, way)
                queue.append(other)
    if b not in came:
        return None
    steps: list[Step] = []
    node = b
    while node != a:
        prev, way = came[node]
        steps.append(Step(g.nodes[prev], g.nodes[node], way))
        node = prev
    return steps[::-1]


def _path_with(
    g: NoteGraph, source: str, target: str, directed: bool, extra: Sequence[tuple[str, str]]
) -> list[Step] | None:
    """`shortest_path` over the graph's links and the `extra` ones, by path: the same breadth-first
    order (a node's ways by path, along a link before against it)."""
    if source == target:
        return []
    out_extra: dict[str, list[str]] = {}
    in_extra: dict[str, list[str]] = {}
    for a, b in dict.fromkeys(extra):
        if a != b:
            out_extra.setdefault(a, []).append(b)
            in_extra.setdefault(b, []).append(a)
    out, back, nodes = g.out_csr(), g.in_csr(), g.nodes

    def ways(node: str) -> list[tuple[str, Direction]]:
        i = g.index.get(node)
        found: list[tuple[str, Direction]] = [(v, "outlink") for v in out_extra.get(node, ())]
        if i is not None:
            found += [(nodes[int(v)], "outlink") for v in out.row(i)]
        if not directed:
            found += [(v, "backlink") for v in in_extra.get(node, ())]
            if i is not None:
                found += [(nodes[int(v)], "backlink") for v in back.row(i)]
        found.sort(key=lambda w: (w[0], w[1] != "outlink"))
        return found

    came: dict[str, tuple[str, Direction]] = {source: (source, "outlink")}
    queue = deque([source])
    while queue and target not in came:
        node = queue.popleft()
        for other, way in ways(node):
            if other not in came:
                came[other] = (node, way)
                queue.append(other)
    if target not in came:
        return None
    steps: list[Step] = []
    node = target
    while node != source:
        prev, way = came[node]
        steps.append(Step(prev, node, way))
        node = prev
    return steps[::-1]
