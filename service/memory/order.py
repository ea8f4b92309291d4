"""The order observations were recorded in: which observations are each other's neighbours for
the recall index (`service.memory.recall`).

Observations one caller recorded one after another (block ids from `new_block_id` sort by the
microsecond they were made, across entity notes) are each other's context, as the turns of a
conversation stored one per speaker are: "Yeah, I painted that lake sunrise last year!" is
understood from the turn before it, which is in the other speaker's note. Two observations more
than `GAP_US` apart, recorded by different callers, or about different days (their `date`) are
not neighbours. An observation whose
block id says nothing of when it was recorded (an older id, one a person wrote) has the
observations just before and after it in its note as neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from service.memory.model import Entity, recorded_order

if TYPE_CHECKING:
    import numpy as np
else:
    from service.numpy_lazy import np  # imported at its first use

GAP_US = 3600 * 1_000_000  # an hour between two observations: no longer one conversation


def stamps(entity: Entity) -> tuple[Any, Any]:
    """Per observation of `entity`: when it was recorded (-1: its block id does not say) and a
    number for who recorded it about which day (`by`, `date`); kept with the entity's note by the
    recall index."""
    times = np.asarray([recorded_order(o.block_id) or -1 for o in entity.observations], dtype=np.int64)
    callers = np.asarray(
        [hash((o.fields.get("by", ""), o.fields.get("date", ""))) for o in entity.observations], dtype=np.int64
    )
    return times, callers


def neighbours(parts: Sequence[tuple[Any, Any, int]], total: int) -> tuple[Any, Any]:
    """(before, after): for each unit, the unit recorded just before and just after it, -1 where
    there is none. `parts`: each entity note's `stamps` and the unit its observations start at."""
    times = np.full(total, -1, dtype=np.int64)
    callers = np.zeros(total, dtype=np.int64)
    note = np.full(total, -1, dtype=np.int64)
    for k, (t, c, start) in enumerate(parts):
        times[start : start + len(t)] = t
        callers[start : start + len(t)] = c
        note[start : start + len(t)] = k
    before = np.full(total, -1, dtype=np.int64)
    after = np.full(total, -1, dtype=np.int64)
    timed = np.flatnonzero(times >= 0)
    ranked = timed[np.lexsort((times[timed], callers[timed]))]
    first, then = ranked[:-1], ranked[1:]
    linked = (callers[first] == callers[then]) & (times[then] - times[first] <= GAP_US)
    after[first[linked]], before[then[linked]] = then[linked], first[linked]
    plain = np.flatnonzero((times < 0) & (note >= 0))  # the note's neighbours
    for step, out in ((-1, before), (1, after)):
        other = plain + step
        inside = (other >= 0) & (other < total)
        same = inside.copy()
        same[inside] = note[other[inside]] == note[plain[inside]]
        out[plain[same]] = other[same]
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
    damped: set[int] = set()  # once, whether one neighbour or both are taken
    out: list[tuple[int, float]] = []
    while pool and len(out) < limit:
        unit = max(pool, key=pool.__getitem__)  # the first of equals, as ranked
        out.append((unit, pool.pop(unit)))
        for other in (int(before[unit]), int(after[unit])):
            if other in pool and other not in damped:
                pool[other] *= damping
                damped.add(other)
    return out
