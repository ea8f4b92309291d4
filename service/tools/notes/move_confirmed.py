"""The plan a move's confirmation showed, run by the call it confirmed when nothing changed since.

A confirmed move_note / rename_note call plans the move twice in one call: for the preview its
confirmation compares with the token (or shows the human asked), then again in the handler, each
reading and rewriting every linking note whose links change. The confirmation now keeps its plan
in the call's notes (`keep`), and the handler runs it (`take`) when it is the same move (source,
destination, the files it moves, walked again) and the vault has not changed for the index since
the plan was made (`stamp`: the index's generation, bumped by every change it applies, the
watcher's included, and the sequence number of our own last write queued for it). Otherwise the
handler plans again, as before. The plan run is then exactly the one the confirmation showed; a
write meanwhile to a note the plan rewrites is still caught by the etag each rewrite is written
with (`conflict`, everything undone).
"""

from __future__ import annotations

from dataclasses import dataclass

from service.graph.moves import MovePlan
from service.tools.context import ToolContext

_KEY = "move_confirmed"


@dataclass(frozen=True)
class Confirmed:
    key: tuple[str, str, bool]  # (source, destination, rename)
    stamp: tuple[int, int]
    plan: MovePlan


def stamp(ctx: ToolContext) -> tuple[int, int] | None:
    """(index generation, our last queued write) of the call's vault; None: no index to ask."""
    from service.indexer.runner import indexer_of

    indexer = indexer_of(ctx.vault)
    return None if indexer is None else (indexer.generation, indexer.queued_seq)


def keep(ctx: ToolContext, key: tuple[str, str, bool], at: tuple[int, int] | None, plan: MovePlan) -> None:
    """Keep the confirmation's plan of move `key`, made with the vault at `at`, for this call. Not
    in a plan's call (`plans.checked_plan`'s notes): it asks a move's confirmation for its own
    preview, and its steps run as calls of their own, which would never take it."""
    if at is not None and "plan_checked" not in ctx.notes:
        ctx.notes[_KEY] = Confirmed(key, at, plan)


def take(
    ctx: ToolContext, key: tuple[str, str, bool], at: tuple[int, int] | None, moves: dict[str, str]
) -> MovePlan | None:
    """The plan the confirmation kept, when it is move `key` of the same files `moves` and the
    vault is still at `at` (taken once: a second use plans again)."""
    shown = ctx.notes.pop(_KEY, None)
    fits = isinstance(shown, Confirmed) and at is not None and (shown.key, shown.stamp) == (key, at)
    return shown.plan if fits and shown.plan.moves == moves else None
