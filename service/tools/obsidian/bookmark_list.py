"""obsidian domain, bookmarks: list_bookmarks — `.obsidian/bookmarks.json` by pages.

Bookmarks are listed depth first, as Obsidian shows them (a group, then what it holds), by
pages of `limit`: a group's bookmarks may go on on the next page, each carrying its `group` and
`depth`, and a group's `items` counts what it holds on every page. A cursor names the last
bookmark a page listed by its id (`service.obsidian.bookmarks`), so bookmarks added or removed
elsewhere (add_bookmark, Obsidian) shift no later page. The file is read and walked in a worker
thread once it is long (`service.vault.offloop`): 100,000 bookmarks held the event loop 8.7 s.
What the caller may not read is invisible, as in `bookmarks.py`.
Touches: `.obsidian/bookmarks.json` (read only).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from pydantic import Field

from service.errors import ValidationFailed
from service.obsidian import bookmarks as bm
from service.security.visible import unrestricted
from service.tools.context import ToolContext
from service.tools.models import Paging, ToolInput, ToolOutput, decode_after, encode_after
from service.tools.obsidian.bookmarks import FILE, Bookmark, group_at, shown, visible_to
from service.tools.obsidian.config import config_size, read_kept
from service.tools.spec import ToolSpec
from service.vault import offloop


class BookmarksOut(ToolOutput):
    items: list[Bookmark] = Field(
        description="This page of bookmarks, depth first, in the order Obsidian shows them (a group, then what it "
        "holds; a group's bookmarks may go on on the next page, each with its `group` and `depth`)."
    )
    total: int = Field(description="Bookmarks listed over all pages (those you see; inside `group` when given).")
    etag: str | None = Field(description="Etag of bookmarks.json (None when there is none yet).")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page; absent on the last.")


class ListBookmarksIn(ToolInput, Paging):
    group: str | None = Field(default=None, description="Only the bookmarks inside this group (id or title).")
    limit: int = Field(
        default=200,
        ge=1,
        le=1000,
        description="Bookmarks a page lists, counted depth first: a group and what it holds, at any depth, one each.",
    )


@dataclass(frozen=True, slots=True)
class _Walked:
    """What every page of one version of the file, for one view, starts from (kept between pages:
    `read_kept`): the whole walk, unkeyed, and each group's count of what it holds; where each
    anchor sits (`bm.anchored`), made at the first cursor whose bookmark moved (`places`)."""

    every: list[bm.Located]
    inside: dict[str, int]
    made: list[dict[Any, int | list[int]]] = field(default_factory=list)  # [the anchors' places], once made

    def places(self, anchor: str | int | None) -> list[int]:
        """The indexes of the items whose anchor is `anchor`. Made whole before it is shared (two
        threads may both make it: the same value; every reader takes the first)."""
        if not self.made:
            self.made.append(bm.anchored(self.every))
        held = self.made[0].get(anchor, [])
        return [held] if isinstance(held, int) else held


def _walked(ctx: ToolContext, data: Any) -> _Walked:
    every = list(bm.walk(bm.items_of(data), visible_to(ctx), keyed=False))
    return _Walked(every, bm.inside_counts(every))


def _view(ctx: ToolContext) -> Hashable:
    """What the bookmarks a caller sees depend on besides the file: nothing when no rule can deny
    it a note (every such caller sees the same), else its principal under the guard's rules of now;
    a guard that numbers no rules: a view of this call only (the walk is made again each page)."""
    if unrestricted(ctx):
        return "everyone"
    version = getattr(ctx.services.guard, "rules_version", None)
    return (ctx.principal, version) if isinstance(version, int) else object()


def _listing(ctx: ToolContext, args: ListBookmarksIn) -> BookmarksOut:
    """The page `args` asks for, of the file as it is now. The whole file is read and walked (a
    group's count needs what it holds) once per version: a next page of the same version reuses
    that walk (`read_kept`: 0.7 s of CPU a page of 100,000 before). Only the page's bookmarks get
    their ids (`bm.ids_at`: hashing every item was 2.5 s of 100,000) and are built (each looks at
    the disk). The cursor names the last bookmark listed by its id, where it was and its anchor
    (`bm.anchor_of`); when that bookmark moved (the file changed), it is looked for among the items
    of its anchor (only they are hashed; a cursor without one, of an older server: every item), and
    when it is gone, `stale_cursor`."""
    after = decode_after(args.cursor, t="bookmarks", g=args.group)
    walked, etag = read_kept(ctx, FILE, _view(ctx), partial(_walked, ctx))
    every = walked.every
    listed = range(len(every))
    if args.group is not None:
        at = group_at(every, args.group)[0]  # what a group holds follows it in a walk, depth first
        listed = range(at + 1, at + 1 + walked.inside[every[at].position])
    start = 0 if after is None else bisect_right(listed, _last(walked, after))
    window = listed[start : start + args.limit]
    ids = bm.ids_at(every, window)
    more = start + args.limit < len(listed)
    return BookmarksOut(
        items=[shown(ctx, replace(every[i], id=ids[i]), walked.inside) for i in window],
        total=len(listed),
        etag=etag,
        next_cursor=_cursor(every, ids, window[-1], args.group) if more else None,
    )


def _cursor(every: list[bm.Located], ids: dict[int, str], last: int, group: str | None) -> str:
    return encode_after([ids[last], last, bm.anchor_of(every[last].item)], t="bookmarks", g=group)


def _last(walked: _Walked, after: tuple[object, ...]) -> int:
    """Where the bookmark a cursor names (its id, where it was, its anchor) is now in the walk."""
    every = walked.every
    ident, at, *anchor = after if len(after) in (2, 3) else (None, None)
    if not isinstance(ident, str) or not isinstance(at, int) or isinstance(at, bool) or at < 0:
        raise ValidationFailed("invalid cursor", details={"field": "cursor"})
    mark = anchor[0] if anchor else None
    if not (mark is None or isinstance(mark, str | int)):
        raise ValidationFailed("invalid cursor", details={"field": "cursor"})
    if at < len(every) and bm.ids_at(every, [at])[at] == ident:
        return at
    # only the items of its anchor (a cursor of an older server names none: every item), from where it was
    moved = bm.find_moved(every, walked.places(mark) if anchor else range(len(every)), ident, at)
    if moved is None:
        raise ValidationFailed(
            "the bookmark the last page ended at is gone: list the bookmarks again without a cursor",
            details={"field": "cursor", "reason": "stale_cursor"},
        )
    return moved


async def list_bookmarks(ctx: ToolContext, args: ListBookmarksIn) -> BookmarksOut:
    return await offloop.sized(config_size(ctx, FILE), _listing, ctx, args)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="list_bookmarks",
        domain="obsidian",
        title="List bookmarks",
        description="The vault's Obsidian bookmarks (files with heading/block, folders, searches, graphs, URLs, "
        "groups), depth first with ids for remove_bookmark and the file's etag, by pages of `limit` (next_cursor: "
        "the rest; a group's bookmarks may go on on the next page).",
        input_model=ListBookmarksIn,
        output_model=BookmarksOut,
        handler=list_bookmarks,
    ),
)
