"""The plan a move's confirmation showed, run by the call it confirmed when nothing changed since.

A confirmed move_note / rename_note call plans the move twice in one call: for the preview its
confirmation compares with the token (or shows the human asked), then again in the handler, each
reading and rewriting every linking note whose links change. The confirmation now keeps its plan
in the call's notes (`keep`), and the handler runs it (`take`) when it is the same move (source,
destination, the files it moves, walked again) and the vault has not changed for the index since
the plan was made (`change_pages.index_stamp`: the index's generation, bumped by every change it
applies, the watcher's included, and the sequence number of our own last write queued for it). Otherwise the
handler plans again; when the new plan changes other files than the one shown (a note linking to
the moved one written meanwhile, one gone), the move answers `conflict` with the new preview and
changes nothing (`moves._plan`): a human approved a list of files, never another. The plan run is
then exactly the one the confirmation showed, or one changing the same files; a write meanwhile to
a note the plan rewrites is still caught by the etag each rewrite is written with (`conflict`,
everything undone).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.errors import Conflict
from service.graph.moves import MovePlan
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext

_KEY = "move_confirmed"


@dataclass(frozen=True)
class Confirmed:
    key: tuple[str, str, bool]  # (source, destination, rename)
    stamp: tuple[int, int]
    plan: MovePlan


def keep(ctx: ToolContext, key: tuple[str, str, bool], at: tuple[int, int] | None, plan: MovePlan) -> None:
    """Keep the confirmation's plan of move `key`, made with the vault at `at`, for this call. Not
    in a plan's call (`plans.checked_plan`'s notes): it asks a move's confirmation for its own
    preview, and its steps run as calls of their own, which would never take it."""
    if at is not None and "plan_checked" not in ctx.notes:
        ctx.notes[_KEY] = Confirmed(key, at, plan)


def take(
    ctx: ToolContext, key: tuple[str, str, bool], at: tuple[int, int] | None, moves: dict[str, str]
) -> tuple[MovePlan | None, MovePlan | None]:
    """(the plan the confirmation kept when it is move `key` of the same files `moves` and the
    vault is still at `at`, else None: plan again; the plan the confirmation showed, None when
    none did). Taken once: a second use plans again."""
    shown = ctx.notes.pop(_KEY, None)
    if not isinstance(shown, Confirmed):
        return None, None
    fits = at is not None and (shown.key, shown.stamp) == (key, at) and shown.plan.moves == moves
    return (shown.plan if fits else None), shown.plan


def changed_files(plan: MovePlan) -> set[str]:
    """Every file a move changes: each moved file at both ends, each note whose links it
    rewrites, each settings file it repoints (bookmarks, the workspace)."""
    files = set(plan.moves) | set(plan.moves.values())
    files |= {e.path for e in plan.edits} | {e.new_path for e in plan.edits if e.new_path}
    return files | {s.path for s in plan.settings if s.changed}


def refuse_other_files(shown: MovePlan | None, plan: MovePlan, preview: Callable[[], ChangePreview]) -> None:
    """`conflict` when the move planned again changes other files than the plan its confirmation
    showed (`shown`; None: no confirmation showed one), with what it would change now (`preview`)."""
    if shown is None:
        return
    before, now = changed_files(shown), changed_files(plan)
    if before == now:
        return
    added, dropped = sorted(now - before), sorted(before - now)
    raise Conflict(
        f"the vault changed since the confirmation: the move now changes {len(now)} files, not the {len(before)} "
        f"approved ({len(added)} more, {len(dropped)} fewer); nothing was changed",
        details={
            "reason": "changed_since_confirmation",
            "files_changed": len(now),
            "added": added[:20],
            "dropped": dropped[:20],
            "preview": preview().brief(),
        },
        hint="Call again: a new confirmation shows what the move changes now.",
    )
