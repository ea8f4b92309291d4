"""Bounded expansion of seed notes along the link graph, for GraphRAG (`graphrag_query`).

Breadth first from the seeds, one hop at a time, in both directions (a note's outlinks and its
backlinks), up to `hops` hops. At each hop every frontier note keeps at most `fan_out` new
neighbours: those the caller may read (`can_read` is asked *before* the fan-out is cut, so a
note the caller may not read never takes a place, never appears on a path, and never carries the
expansion further), best `prefer` first (the query's own ranking of the note, 0 when unranked),
then by path. Frontier notes are visited in order (seeds in their rank order), so a note reached
from two seeds keeps the path from the better one. Every reached note remembers the chain of
links from its seed (`Reached.steps`).

Graph scores: `support(v)` counts the distinct notes at the previous distance that link to or
from `v` (several good notes pointing at one note is the signal GraphRAG adds); the tool ranks
reached notes by (best seed rank, distance, -support). Pure: the neighbour query is passed in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

Direction = Literal["outlink", "backlink"]
Neighbours = Callable[[list[str]], Awaitable[list[tuple[str, str, str]]]]  # (from, other, 'out'|'in')
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


async def expand(
    seeds: list[str],
    neighbours: Neighbours,
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
        edges = await neighbours(frontier)
        by_origin: dict[str, list[tuple[str, Direction]]] = {}
        for origin, other, way in edges:
            if other != origin:
                by_origin.setdefault(origin, []).append((other, "outlink" if way == "out" else "backlink"))
        nxt: list[str] = []
        for origin in frontier:
            here = reached[origin]
            options: dict[str, Direction] = {}
            for other, direction in by_origin.get(origin, []):
                if other in options or not can_read(other):
                    continue
                known = reached.get(other)
                if known is not None:
                    if known.distance == hop:
                        known.support.add(origin)
                    continue
                options[other] = direction
            ranked = sorted(options, key=lambda p: (-prefer(p), p))
            if len(ranked) > fan_out:
                truncated = True
            for other in ranked[:fan_out]:
                step = Step(origin, other, options[other])
                reached[other] = Reached(other, here.seed, here.seed_rank, hop, (*here.steps, step), {origin})
                nxt.append(other)
        frontier = nxt
        if on_hop is not None:
            await on_hop(hop, len(reached))
    return Expansion(reached, truncated)
