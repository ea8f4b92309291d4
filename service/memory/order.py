"""The order observations were recorded in: which observations are each other's neighbours for
the recall index (`service.memory.recall`).

Observations one caller recorded one after another (block ids from `new_block_id` sort by the
microsecond they were made, across entity notes) are each other's context, as the turns of a
conversation stored one per speaker are: "Yeah, I painted that lake sunrise last year!" is
understood from the turn before it, which is in the other speaker's note. Two observations more
than `GAP_US` apart, or recorded by different callers, are not neighbours. An observation whose
block id says nothing of when it was recorded (an older id, one a person wrote) has the
observations just before and after it in its note as neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Protocol

from service.memory.model import Entity, recorded_order

if TYPE_CHECKING:
    import numpy as np
else:
    from service.numpy_lazy import np  # imported at its first use

GAP_US = 3600 * 1_000_000  # an hour between two observations: no longer one conversation


class HasEntity(Protocol):
    entity: Entity


def neighbours(entries: Sequence[tuple[HasEntity, int]], total: int) -> tuple[Any, Any]:
    """(before, after): for each unit (an entry's observations start at its offset), the unit
    recorded just before and just after it, -1 where there is none."""
    before = np.full(total, -1, dtype=np.int64)
    after = np.full(total, -1, dtype=np.int64)
    timed: list[tuple[str, int, int]] = []
    for entry, start in entries:
        observations = entry.entity.observations
        for i, obs in enumerate(observations):
            at = recorded_order(obs.block_id)
            if at is not None:
                timed.append((obs.fields.get("by", ""), at, start + i))
                continue
            if i > 0:
                before[start + i] = start + i - 1
            if i + 1 < len(observations):
                after[start + i] = start + i + 1
    timed.sort()
    for (by_a, at_a, unit_a), (by_b, at_b, unit_b) in pairwise(timed):
        if by_a == by_b and at_b - at_a <= GAP_US:
            after[unit_a], before[unit_b] = unit_b, unit_a
    return before, after


def spread(values: Any, before: Any, after: Any) -> Any:
    """Each unit's neighbours' values summed (0 where a neighbour is missing)."""
    padded = np.append(values, 0.0).astype(values.dtype)  # index -1 reads the 0
    return padded[before] + padded[after]


def diverse(ranked: Any, score: Any, before: Any, after: Any, limit: int, damping: float) -> list[tuple[int, float]]:
    """The best `limit` of `ranked` (units, best first) with their scores, where a unit whose
    neighbour is already taken counts `damping` times as much: its neighbours' words lifted it
    (`spread`), so the next hits come from elsewhere in what was recorded."""
    pool = {int(u): float(score[u]) for u in ranked[: limit * 4]}
    out: list[tuple[int, float]] = []
    while pool and len(out) < limit:
        unit = max(pool, key=pool.__getitem__)  # the first of equals, as ranked
        out.append((unit, pool.pop(unit)))
        for other in (int(before[unit]), int(after[unit])):
            if other in pool:
                pool[other] *= damping
    return out
