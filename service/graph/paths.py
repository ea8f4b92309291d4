"""Shortest link paths over a vault's link graph (`NoteGraph`, `service.graph.analytics`).

`shortest_path`: breadth first, neighbours in path order, so among equally short paths the one
through the alphabetically first notes is returned; `None` when there is none. The graph holds
Markdown notes only; a canvas, a base or an image at an end of the path is joined by the links it
has (`extra`: a canvas's links out, the notes linking to the file), so a path runs from a note
through the canvas that lists it, or to the base a note embeds. A canvas is crossed in the middle
of a path too (`canvas_links`: the links of every canvas the caller may read, as Obsidian's graph
view draws a canvas as a node); an image or a base is not (a leaf that links nothing: notes
sharing a logo are not linked by it; Obsidian's graph shows attachments only on request). The
graph itself stays notes-only: PageRank, betweenness and communities rank and group notes.
Pure functions: no index, no ACL (`keep` is the caller's read decision).
"""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from service.graph.expand import Direction, Step

if TYPE_CHECKING:
    from service.graph.adjacency import LinkGraph
    from service.graph.analytics import NoteGraph


def canvas_links(links: LinkGraph, g: NoteGraph, keep: Callable[[str], bool]) -> list[tuple[str, str]]:
    """The links (linking, linked) of the canvases among `links`' paths that `keep` admits, whose
    other end is a node of `g` or another such canvas: what `shortest_path` needs (as `extra`)
    to cross a canvas (a note embedding the canvas, the canvas's cards and text links)."""
    canvases = {p for p in links.canvases if keep(p)}
    if not canvases:
        return []
    found: list[tuple[str, str]] = []
    for c in sorted(canvases):
        found += [(c, t) for t in links.outlinks(c) if t in g.index or t in canvases]
        found += [(s, c) for s in links.backlinks(c) if s in g.index]  # canvas -> canvas: its outlinks
    return found


def shortest_path(
    g: NoteGraph, source: str, target: str, directed: bool = False, extra: Sequence[tuple[str, str]] = ()
) -> list[Step] | None:
    """The fewest links from `source` to `target`, as steps (an 'outlink' step follows a link, a
    'backlink' step goes against one; only outlinks when `directed`); [] when they are the same
    note, None when no path joins them. Both must be nodes (KeyError otherwise), unless `extra`
    gives links (linking, linked) of files that are no nodes (a canvas anywhere on the path, a
    base or an image at an end): then the search goes through those links too, each such file
    numbered after the nodes and taken in its path's place among them (ties: by path)."""
    n = len(g)
    more = sorted({p for link in extra for p in link if p not in g.index})
    number = {p: n + k for k, p in enumerate(more)}
    a, b = g.index.get(source, number.get(source)), g.index.get(target, number.get(target))
    if a is None or b is None:
        if not extra:
            raise KeyError(source if a is None else target)
        return None if source != target else []
    if a == b:
        return []
    # a file's place among the nodes (node i: 2i + 1): just before the first node after it by path
    place = {n + k: 2 * bisect.bisect_left(g.nodes, p) + (k + 1) / (len(more) + 1) for k, p in enumerate(more)}
    out_extra: dict[int, list[int]] = {}
    in_extra: dict[int, list[int]] = {}
    for x, y in dict.fromkeys(extra):
        i, j = g.index.get(x, number.get(x)), g.index.get(y, number.get(y))
        if i is not None and j is not None and i != j:
            out_extra.setdefault(i, []).append(j)
            in_extra.setdefault(j, []).append(i)
    out, back = g.out_csr(), g.in_csr()
    came: dict[int, tuple[int, Direction]] = {a: (a, "outlink")}
    queue = deque([a])
    while queue and b not in came:
        node = queue.popleft()
        ways: list[tuple[int, Direction]] = [(v, "outlink") for v in out.row(node).tolist()] if node < n else []
        if not directed and node < n:
            ways += [(v, "backlink") for v in back.row(node).tolist()]
        if node in out_extra or (not directed and node in in_extra):
            ways += [(v, "outlink") for v in out_extra.get(node, ())]
            if not directed:
                ways += [(v, "backlink") for v in in_extra.get(node, ())]
            ways.sort(key=lambda w: (2 * w[0] + 1 if w[0] < n else place[w[0]], w[1] != "outlink"))
        elif not directed:
            ways.sort(key=lambda w: (w[0], w[1] != "outlink"))  # linked both ways: reached along the link
        for other, way in ways:
            if other not in came:
                came[other] = (node, way)
                queue.append(other)
    if b not in came:
        return None
    name = [*g.nodes, *more].__getitem__ if more else g.nodes.__getitem__
    steps: list[Step] = []
    node = b
    while node != a:
        prev, way = came[node]
        steps.append(Step(name(prev), name(node), way))
        node = prev
    return steps[::-1]
