"""memory domain: a write's report, and a read's entities, within the response limit. A change that happened is never
turned into an error; the governor (`service.dispatch.governor`) would halve the biggest list of
an answer over the limit, and for add_observations that is `results`, whose one entry for one
entity holds everything: the answer became `{"results": []}` (T1 s63 #7). Here the lists that
echo what the call sent are left out instead, in the order given, and each entry's name and
counts stay."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_json

RESERVE = 1024  # bytes of the answer kept for the governor's note and the framing


def fitted(out: BaseModel, entries: Sequence[BaseModel], drops: Sequence[str], limit: int) -> bool:
    """Empty the lists named `drops` of every entry of `out`, one name after the other, until `out`
    fits half of `limit` (`[governor] max_response_bytes`: the answer is sent as JSON and again as
    text). Whether any was emptied."""
    budget = max(limit - RESERVE, 0) // 2
    cut = False
    for drop in drops:
        if len(out.model_dump_json(exclude_none=True).encode()) <= budget:  # bytes, as the limit counts
            break
        cut = True
        for entry in entries:
            setattr(entry, drop, [])
    return cut


def left_out(out: BaseModel, entities: Sequence[Any], limit: int) -> list[str]:
    """Empty the `observations` of the biggest of `entities` (`EntityOut`s of `out`), biggest
    first, until `out` fits half of `limit`; the names of those emptied. A read that pages
    (read_memory_graph) or answers whole (open_nodes) over the limit is `overflow`, and one entity
    of 20,000 observations was over it alone: no answer holding it could be had."""
    budget = max(limit - RESERVE, 0) // 2
    size = len(out.model_dump_json(exclude_none=True).encode())
    names: list[str] = []
    for entity in sorted(entities, key=lambda e: len(e.observations), reverse=True):
        if size <= budget or not entity.observations:
            break
        size -= len(to_json([o.model_dump(exclude_none=True) for o in entity.observations])) - 2
        entity.observations = []
        names.append(entity.name)
    return names
