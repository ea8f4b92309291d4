"""Paging the change reports of vault-wide edits (move_note, rename_note, rewrite_links,
rename_tag), so that a report always fits the response governor's budget.

A dry run is a preview: `limit` changes per page, `next_cursor` for the next page (bound to the
same arguments). An applied change cannot be paged after the fact (the plan is gone), so it
reports the totals and its first `limit` changes, with `truncated` when there were more; the
totals are always exact.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, TypeVar

from pydantic import Field

from service.errors import ValidationFailed
from service.tools.models import PIPELINE_ARGS, ToolInput, decode_cursor, encode_cursor

T = TypeVar("T")
DEFAULT_LIMIT = 50
MAX_LIMIT = 500


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
