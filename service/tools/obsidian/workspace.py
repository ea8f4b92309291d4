"""obsidian domain, workspace: get_workspace, list_recent_files.

Both read `.obsidian/workspace.json` (format: `service.obsidian.workspace`), the layout Obsidian
saved last: what was open, which tab had focus, the recently opened files. A vault without the
file, or with a partial or malformed one, answers with what there is (possibly nothing), never
an error. Files the caller may not read are left out everywhere (a tab on one shows no file and
it is never the active file). Tabs are listed by pages (`limit`, 500 by default): the cursor
names the last tab listed by its leaf id, as list_bookmarks' names its bookmark, so tabs opened
or closed meanwhile shift no page. The file's layout is read once per version and kept for the
next pages (`read_kept`: a workspace.json of 100,000 tabs cost every page its parse).
Touches: `.obsidian/workspace.json` (read only).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any, Literal

from pydantic import Field

from service.errors import ValidationFailed
from service.obsidian import workspace as ws
from service.obsidian.attachments import kind_of
from service.tools.context import ToolContext
from service.tools.models import Paging, ToolInput, ToolOutput, decode_after, decode_cursor, encode_after, page_of
from service.tools.obsidian.config import FileRef, config_size, file_ref, read_kept, visible_path
from service.tools.spec import ToolSpec
from service.vault import offloop

FILE = "workspace.json"
# Tabs a page lists by default: a workspace.json of 100,000 tabs was built whole (7 s) to be
# refused as too long; 500 is what an answer listed before tabs were paged.
TABS_PAGE = 500


class Tab(ToolOutput):
    id: str = Field(description="Obsidian's leaf id.")
    area: str = Field(description="main (the editor area), left or right (the sidebars).")
    view: str = Field(description="The view type: markdown, canvas, pdf, image, graph, search, ...")
    file: FileRef | None = Field(description="The file shown, for file views you may read.")
    title: str | None = Field(description="The tab's title as saved, for views without a file.")
    active: bool = Field(description="Whether this tab had the focus.")
    selected: bool = Field(description="Whether it is the selected tab of its tab group.")
    pinned: bool = Field(description="Whether the tab is pinned.")


class WorkspaceIn(ToolInput, Paging):
    include_sidebars: bool = Field(default=False, description="Also list the left and right sidebar tabs.")
    limit: int = Field(default=TABS_PAGE, ge=1, le=1000, description="Tabs a page lists.")


class WorkspaceOut(ToolOutput):
    found: bool = Field(description="Whether .obsidian/workspace.json exists and could be read.")
    active_file: FileRef | None = Field(description="The file of the focused tab (None if none or not yours).")
    tabs: list[Tab] = Field(description="This page of the open tabs, in layout order (`limit`, 500 by default).")
    tabs_total: int = Field(description="Open tabs in the layout, over all pages.")
    recent_files: list[FileRef] = Field(description="The first 10 recently opened files, newest first.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next tabs; absent on the last.")


@dataclass(frozen=True, slots=True)
class _Layout:
    """What the pages of one version of workspace.json read (kept between pages: `read_kept`): every
    leaf, the focused one and its id, the recent files (none looked at yet: that is the caller's)."""

    found: bool
    leaves: list[ws.Leaf]
    active: str | None
    focused: ws.Leaf | None
    recent: list[str]


def _layout(data: Any) -> _Layout:
    leaves, active = ws.leaves(data), ws.active_id(data)
    focused = next((leaf for leaf in leaves if leaf.id == active), None)
    return _Layout(isinstance(data, dict), leaves, active, focused, ws.last_open_files(data))


def _read_layout(ctx: ToolContext) -> _Layout:
    return read_kept(ctx, FILE, "layout", _layout)[0]  # the same for every caller: the ACL applies per page


def _tab(ctx: ToolContext, leaf: ws.Leaf, active: str | None) -> Tab:
    rel = visible_path(ctx, leaf.file)
    return Tab(
        id=leaf.id,
        area=leaf.area,
        view=leaf.view,
        file=file_ref(ctx, rel) if rel is not None else None,
        title=leaf.title if leaf.file is None else (leaf.title if rel is not None else None),
        active=leaf.id == active,
        selected=leaf.current,
        pinned=leaf.pinned,
    )


def _recent(ctx: ToolContext, layout: _Layout) -> Iterator[str]:
    """The recent files the caller may read, newest first, each looked at when it is reached (a
    page is done with the first it lists and one more: 100,000 entries were each checked)."""
    return (rel for raw in layout.recent if (rel := visible_path(ctx, raw)) is not None)


async def get_workspace(ctx: ToolContext, args: WorkspaceIn) -> WorkspaceOut:
    after = decode_after(args.cursor, t="tabs", s=args.include_sidebars)
    # A long workspace.json is read in a worker thread (100,000 tabs held the event loop 7.3 s).
    return await offloop.sized(config_size(ctx, FILE), _workspace, ctx, args, after)


def _workspace(ctx: ToolContext, args: WorkspaceIn, after: tuple[Any, ...] | None) -> WorkspaceOut:
    layout = _read_layout(ctx)
    leaves = layout.leaves if args.include_sidebars else [leaf for leaf in layout.leaves if leaf.area == "main"]
    start = 0 if after is None else _after(leaves, after) + 1
    window = leaves[start : start + args.limit]
    more = start + args.limit < len(leaves)
    active_rel = visible_path(ctx, layout.focused.file) if layout.focused is not None else None
    return WorkspaceOut(
        found=layout.found,
        active_file=file_ref(ctx, active_rel) if active_rel is not None else None,
        tabs=[_tab(ctx, leaf, layout.active) for leaf in window],
        tabs_total=len(leaves),
        recent_files=[file_ref(ctx, rel) for rel in islice(_recent(ctx, layout), 10)],
        next_cursor=encode_after([window[-1].id, start + len(window) - 1], t="tabs", s=args.include_sidebars)
        if more
        else None,
    )


def _after(leaves: list[ws.Leaf], after: tuple[Any, ...]) -> int:
    """Where the tab a cursor names (its leaf id, where it was) is now: there still, else the
    first tab of that id; `stale_cursor` when the tab was closed."""
    ident, at = after if len(after) == 2 else (None, None)
    if not isinstance(ident, str) or not isinstance(at, int) or isinstance(at, bool) or at < 0:
        raise ValidationFailed("invalid cursor", details={"field": "cursor"})
    if at < len(leaves) and leaves[at].id == ident:
        return at
    moved = next((i for i, leaf in enumerate(leaves) if leaf.id == ident), None)
    if moved is None:
        raise ValidationFailed(
            "the tab the last page ended at was closed: call get_workspace again without a cursor",
            details={"field": "cursor", "reason": "stale_cursor"},
        )
    return moved


class RecentIn(ToolInput, Paging):
    kind: Literal["note", "canvas", "base", "image", "audio", "video", "pdf", "text", "other"] | None = Field(
        default=None, description="Only files of this kind."
    )


class RecentFile(FileRef):
    kind: str = Field(description="note, canvas, base, image, audio, video, pdf, text or other.")


class RecentOut(ToolOutput):
    items: list[RecentFile] = Field(description="Recently opened files, newest first (Obsidian keeps about 10).")
    next_cursor: str | None = Field(description="Cursor of the next page.")


def _kind(rel: str) -> str:
    return "note" if rel.lower().endswith(".md") else kind_of(rel)


async def list_recent_files(ctx: ToolContext, args: RecentIn) -> RecentOut:
    offset = decode_cursor(args.cursor, k=args.kind)
    return await offloop.sized(config_size(ctx, FILE), _recent_page, ctx, args, offset)


def _recent_page(ctx: ToolContext, args: RecentIn, offset: int) -> RecentOut:
    kept = (rel for rel in _recent(ctx, _read_layout(ctx)) if args.kind is None or _kind(rel) == args.kind)
    rels = list(islice(kept, offset + args.limit + 1))  # one past the page: whether there is more
    window, cursor = page_of(rels, offset, args.limit, k=args.kind)
    items = [RecentFile(**file_ref(ctx, rel).model_dump(), kind=_kind(rel)) for rel in window]
    return RecentOut(items=items, next_cursor=cursor)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="get_workspace",
        domain="obsidian",
        title="Get the Obsidian workspace",
        description="What the vault's owner had open in Obsidian when it last saved its layout: the tabs (by "
        "pages of `limit`, next_cursor: the rest), the active file and the recent files (from "
        ".obsidian/workspace.json; empty when there is none). Works without Obsidian running; get_active_note "
        "asks a running Obsidian instead.",
        input_model=WorkspaceIn,
        output_model=WorkspaceOut,
        handler=get_workspace,
    ),
    ToolSpec(
        name="list_recent_files",
        domain="obsidian",
        title="List recently opened files",
        description="The files recently opened in Obsidian, newest first (lastOpenFiles of .obsidian/"
        "workspace.json), optionally of one kind; for recently changed notes use list_notes sorted by mtime.",
        input_model=RecentIn,
        output_model=RecentOut,
        handler=list_recent_files,
    ),
)
