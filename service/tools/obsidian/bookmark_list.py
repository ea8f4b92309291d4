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

from pydantic import Field

from service.errors import ValidationFailed
from service.obsidian import bookmarks as bm
from service.tools.context import ToolContext
from service.tools.models import Paging, ToolInput, ToolOutput, decode_after, encode_after
from service.tools.obsidian.bookmarks import FILE, Bookmark, find_group, shown, visible_to
from service.tools.obsidian.config import config_size, read_config
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


def _listing(ctx: ToolContext, args: ListBookmarksIn) -> BookmarksOut:
    """The page `args` asks for: the whole file is read and walked (a group's count and an id's
    number among identical items need every item before it), only the page's bookmarks are built
    (each looks at the disk). The cursor names the last bookmark listed by its id, so bookmarks
    added or removed elsewhere shift no later page; when that one is gone, `stale_cursor`."""
    after = decode_after(args.cursor, t="bookmarks", g=args.group)
    data, etag = read_config(ctx, FILE)
    found = list(bm.walk(bm.items_of(data), visible_to(ctx)))
    inside = bm.inside_counts(found)
    if args.group is not None:
        group = find_group(ctx, data, args.group)
        found = [loc for loc in found if bm.inside(loc, group)]
    start = 0
    if after is not None:
        start = next((i + 1 for i, loc in enumerate(found) if loc.id == after[0]), -1)
        if start < 0:
            raise ValidationFailed(
                "the bookmark the last page ended at is gone: list the bookmarks again without a cursor",
                details={"field": "cursor", "reason": "stale_cursor"},
            )
    window = found[start : start + args.limit]
    more = start + args.limit < len(found)
    return BookmarksOut(
        items=[shown(ctx, loc, inside) for loc in window],
        total=len(found),
        etag=etag,
        next_cursor=encode_after([window[-1].id], t="bookmarks", g=args.group) if more else None,
    )


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
