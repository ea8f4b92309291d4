"""Bounded expansion of seed notes along the link graph, for GraphRAG (`graphrag_query`).

Breadth first from the seeds, one hop at a time, in both directions (a note's outlinks and its
backlinks), up to `hops` hops. At each hop every frontier note keeps at most `fan_out` new
neighbours: those the caller may read, best `prefer` first (the query's own ranking of the note,
0 when unranked), then by path. `can_read` is asked in that order until `fan_out` readable
neighbours are found (and one more, to know whether any was cut): a note the caller may not read
never takes a place, never appears on a path and never carries the expansion further, and a hub
with a thousand backlinks costs a dozen permission checks, not a thousand. Frontier notes are
visited in order (seeds in their rank order), so a note reached from two seeds keeps the path
from the better one. Every reached note remembers the chain of links from its seed
(`Reached.steps`); a note both linking to and linked from its origin is reached as a backlink.

Graph evidence: `support(v)` holds the distinct notes at the previous distance that link to or
from `v` (several good notes pointing at one note is the signal GraphRAG adds). Pure: the
neighbours of a note come from the `links` function passed in (an in-memory adjacency list).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

Direction = Literal["outlink", "backlink"]
Links = Callable[[str], Iterable[tuple[str, Direction]]]  # a note's (neighbour, direction), backlinks first
OnHop = Callable[[int, int], Awaitable[None]]  # (hop done, notes reached so far)


@dataclass(frozen=True, slots=True)
class Step:
    source: str  # the note the step leaves
    target: str  # the note it reaches
    direction: Direction  # outlink: source links to target; backlink: target links to source


@dataclass
class Reached:
    path: str
    seed: str
    seed_rank: int  # 0-based rank of the seed in the query's ranking
    distance: int  # hops from the seed (0: the seed itself)
    steps: tuple[Step, ...]
    support: set[str] = field(default_factory=set)  # notes one hop nearer the seeds that connect to it


@dataclass(frozen=True, slots=True)
class Expansion:
    reached: dict[str, Reached]  # seeds included (distance 0)
    truncated: bool  # some neighbour was dropped by fan_out


def _best_first(options: dict[str, Direction], prefer: Callable[[str], float]) -> list[str]:
    """The new neighbours by (-prefer, path): the few the query ranked, then the rest by path
    (sorting plain strings, not a key per note, for hubs with thousands of neighbours)."""
    scored = [(p, s) for p in options if (s := prefer(p)) != 0.0]
    if not scored:
        return sorted(options)
    scored.sort(key=lambda ps: (-ps[1], ps[0]))
    first = [p for p, s in scored if s > 0.0]
    last = [p for p, s in scored if s < 0.0]
    rest = sorted(p for p in options if prefer(p) == 0.0)
    return [*first, *rest, *last]


async def expand(
    seeds: list[str],
    links: Links,
    *,
    hops: int,
    fan_out: int,
    can_read: Callable[[str], bool],
    prefer: Callable[[str], float],
    on_hop: OnHop | None = None,
) -> Expansion:
    reached: dict[str, Reached] = {}
    for rank, seed in enumerate(seeds):
        if seed not in reached:
            reached[seed] = Reached(seed, seed, rank, 0, ())
    frontier = list(reached)
    truncated = False
    for hop in range(1, hops + 1):
        if not frontier:
            break
        nxt: list[str] = []
        for origin in frontier:
            here = reached[origin]
            options: dict[str, Direction] = {}
            for other, direction in links(origin):
                if other == origin or other in options:
                    continue
                known = reached.get(other)
                if known is not None:
                    if known.distance == hop:
                        known.support.add(origin)
                    continue
                options[other] = direction
            taken = 0
            for other in _best_first(options, prefer):
                if not can_read(other):
                    continue
                if taken == fan_out:
                    truncated = True
                    break
                step = Step(origin, other, options[other])
                reached[other] = Reached(other, here.seed, here.seed_rank, hop, (*here.steps, step), {origin})
                nxt.append(other)
                taken += 1
        frontier = nxt
        if on_hop is not None:
            await on_hop(hop, len(reached))
    return Expansion(reached, truncated)
