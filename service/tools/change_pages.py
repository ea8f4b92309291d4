"""Paging the change reports of vault-wide edits (move_note, rename_note, rewrite_links,
rename_tag), so that a report always fits the response governor's budget.

A dry run is a preview: `limit` changes per page, `next_cursor` for the next page (bound to the
same arguments). An applied change cannot be paged after the fact (the plan is gone), so it
reports the totals and its first `limit` changes, with `truncated` when there were more; the
totals are always exact.

Each page of a preview used to plan the whole change again, every note it rewrites read and
rewritten to count it (a folder of 2,612 notes: ~0.8 s of CPU a page, 53 pages at the default
limit). A preview's plan now keeps what it found of every edit (`MovePlan.walk`) on the vault
(`kept_walk` / `keep_walk`, a few per vault); a later page of the same call by the same caller,
with nothing changed for the index or the ACL rules since (`index_stamp`), rewrites only its own
notes (`service.graph.moves.scan_page`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import Field

from service.errors import ValidationFailed
from service.tools.models import PIPELINE_ARGS, ToolInput, decode_cursor, encode_cursor

if TYPE_CHECKING:
    from service.graph.moves import Walked
    from service.tools.context import ToolContext

T = TypeVar("T")
DEFAULT_LIMIT = 50
MAX_LIMIT = 500
KEPT_PREVIEWS = 8  # per vault; each its edits' paths and counts (~1 MB for a hub rewriting 9,281 notes)


class ChangeListIn(ToolInput):
    """The paging arguments of a vault-wide edit."""

    limit: int = Field(
        default=DEFAULT_LIMIT,
        ge=1,
        le=MAX_LIMIT,
        description="Most changed files listed in this result (totals always count every change).",
    )
    cursor: str | None = Field(
        default=None, description="Dry runs only: `next_cursor` of the previous preview page of the same call."
    )


def _key(args: ChangeListIn) -> str:
    shape = args.model_dump(exclude={"limit", "cursor", *PIPELINE_ARGS}, mode="json")
    return hashlib.sha256(json.dumps(shape, sort_keys=True).encode()).hexdigest()[:16]


def start_of(args: ChangeListIn, dry_run: bool) -> int:
    """The offset this result starts at; a cursor on an applying call is a validation error."""
    if args.cursor and not dry_run:
        raise ValidationFailed(
            "cursor pages a dry-run preview; an applied change reports its totals and first `limit` changes",
            details={"field": "cursor"},
            hint="Drop cursor, or add dry_run=true to page through the preview.",
        )
    return decode_cursor(args.cursor, c=_key(args))


def window(args: ChangeListIn, dry_run: bool, *lists: list[Any]) -> tuple[list[list[Any]], str | None, bool]:
    """The same window of each list, the next cursor (dry runs) and whether anything is left out."""
    offset, end = bounds(args, dry_run)
    cursor, cut = paged(args, dry_run, *(len(x) for x in lists))
    return [x[offset:end] for x in lists], cursor, cut


def bounds(args: ChangeListIn, dry_run: bool) -> tuple[int, int]:
    """[start, end) of this result among all the changes (an applying call starts at 0)."""
    offset = start_of(args, dry_run)
    return offset, offset + args.limit


def paged(args: ChangeListIn, dry_run: bool, *totals: int) -> tuple[str | None, bool]:
    """The next cursor (dry runs) and whether anything is left out, for lists of these lengths:
    what `window` answers when only the page of a list was kept and the rest counted."""
    offset, end = bounds(args, dry_run)
    more = end < max(totals, default=0)
    cursor = encode_cursor(end, c=_key(args)) if more and dry_run else None
    return cursor, more or offset > 0


def index_stamp(ctx: ToolContext) -> tuple[int, int] | None:
    """(index generation, our last queued write) of the call's vault: both move with every change
    the index applies or has queued; None: no index to ask."""
    from service.indexer.runner import indexer_of

    indexer = indexer_of(ctx.vault)
    return None if indexer is None else (indexer.generation, indexer.queued_seq)


def preview_key(ctx: ToolContext, tool: str, args: ChangeListIn) -> Hashable:
    """Which preview a dry-run call pages: the tool, its arguments but the page, the caller."""
    return (tool, _key(args), ctx.principal)


def kept_walk(ctx: ToolContext, key: Hashable, at: tuple[int, int] | None) -> Walked | None:
    """What the preview `key` found when the vault was as it is `at` (and the ACL rules as now), else None."""
    kept = ctx.vault.previews.get(key)
    if kept is None or at is None or kept[0] != (at, ctx.services.guard.rules_version):
        return None
    ctx.vault.previews.move_to_end(key)
    walked: Walked = kept[1]
    return walked


def keep_walk(ctx: ToolContext, key: Hashable, at: tuple[int, int] | None, walk: Walked | None) -> None:
    """Keep a preview page's `walk` (made with the vault `at`) for the next pages of `key`."""
    previews = ctx.vault.previews
    if walk is None or at is None:
        previews.pop(key, None)
        return
    previews[key] = ((at, ctx.services.guard.rules_version), walk)
    previews.move_to_end(key)
    while len(previews) > KEPT_PREVIEWS:
        previews.popitem(last=False)
