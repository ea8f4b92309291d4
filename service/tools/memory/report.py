"""memory domain: a write's report within the response limit. A change that happened is never
turned into an error; the governor (`service.dispatch.governor`) would halve the biggest list of
an answer over the limit, and for add_observations that is `results`, whose one entry for one
entity holds everything: the answer became `{"results": []}` (T1 s63 #7). Here the lists that
echo what the call sent are left out instead, in the order given, and each entry's name and
counts stay."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

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
