"""graph domain: the link graph of a vault.

Tools: get_backlinks, get_outlinks, graph_neighbors, find_broken_links, find_orphans
(rewrite_links is in `rewrite.py`; move_note and rename_note in `service.tools.notes.moves`).
Touches: index tables `notes`, `links` (read, through `service.graph.queries`), `headings` and
`blocks` (find_broken_links: a link into a heading or block its note lacks, `service.graph.subpaths`,
`section_checks.py`); vault files for the linking line's text.
Line numbers in results are 1-based. A link written in a frontmatter property is a link like the
body's (as in Obsidian): its item names the `property`. Every listed note is filtered with `can_read` before
limits and pagination, so a note the caller may not read never shows up, even as a hop. A link
to such a note is, for that caller, indistinguishable from a link to no note: get_outlinks shows
it unresolved, find_broken_links lists it, find_orphans and graph_neighbors ignore it.
A note deleted on disk that the index still holds (the watcher has not caught up, or does not
run) is treated as gone: results are checked against the disk before they are paged, and the
index is told to drop it. An unknown `folder` is `note_not_found`.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import Field

from service.errors import NotANote, NoteNotFound
from service.graph.linkpath import strip_md
from service.graph.queries import Edge, GraphQueries, hide_target
from service.graph.subpaths import Problem, SubpathLinks
from service.obsidian.attachments import kind_of
from service.security.visible import unrestricted
from service.tools.context import ToolContext, link_target
from service.tools.graph.section_checks import Reason, section_problems
from service.tools.graph_common import (
    CUT_RULE,
    LINE_TEXT_DESCRIPTION,
    LineText,
    NoteItem,
    echoed,
    note_item,
    target_note,
)
from service.tools.models import FILE_ADDRESS, NOTE_ADDRESS, Paging, ToolInput, ToolOutput, decode_cursor, page_of
from service.tools.search_common import drop_gone, forget_gone, missing
from service.tools.spec import ToolSpec
from service.vault.paths import VaultPath

GONE_SLACK = 8  # rows fetched beyond a page, for sources gone from disk since they were indexed


def queries(ctx: ToolContext) -> GraphQueries:
    return GraphQueries(ctx.services.db)


class PathIn(ToolInput, Paging):
    path: str = Field(description=NOTE_ADDRESS + FILE_ADDRESS)


async def linked_file(ctx: ToolContext, address: str) -> VaultPath:
    """The note an address names, else the other file it names with its extension (a canvas, a
    base, an attachment: `ToolContext.find_file`, as `![[Board.canvas]]` names it). Links point at
    those files and a canvas links out as a note does; a folder stays `not_a_note`. A name no file
    has is `note_not_found`: of the file as written when it ends in an extension Obsidian opens
    ('Nope.base', 'Nope.canvas', 'x.png': details.kind, the closest such files), else the note
    lookup's own answer (its suggestions: 'v1.2 notes' is a note's name)."""
    try:
        return (await ctx.find_note(address, "read")).vp
    except (NoteNotFound, NotANote) as exc:
        name = link_target(address).rsplit("/", 1)[-1]
        if exc.details.get("kind") == "folder" or "." not in name.strip(".") or name.lower().endswith(".md"):
            raise
        try:
            return await ctx.find_file(address, "read")
        except NoteNotFound as no_file:
            if kind_of(name) != "other":
                raise no_file from None
            raise exc from None


class LinkItem(NoteItem):
    line: int = Field(description="1-based line of the link in the linking note.")
    text: str = Field(description=LINE_TEXT_DESCRIPTION)
    target: str = Field(description=f"Link target as written ({CUT_RULE}).")
    subpath: str | None = Field(default=None, description=f"Heading or ^block the link points into ({CUT_RULE}).")
    alias: str | None = Field(default=None, description=f"Display text of the link ({CUT_RULE}).")
    embed: bool = Field(description="True for an embed (![[...]]).")
    kind: str = Field(description="'wikilink' or 'markdown'.")
    property: str | None = Field(
        default=None,
        description='The frontmatter property the link is written in (`up: "[[Hub]]"`, a list item); absent for '
        "a link in the note's body.",
    )


class BacklinkItem(LinkItem):
    """`path` is the linking note."""


class OutlinkItem(LinkItem):
    """`path` is the target (where an unresolved link would create its note; a path and title
    longer than the echo bound are cut as `target` is)."""

    obsidian_url: str = Field(
        description="obsidian://open URL of the target; for an unresolved link, the obsidian://new URL"
        " that creates it, as clicking the link in Obsidian does (an unresolved path cut for its length:"
        " the linking note's obsidian://open URL)."
    )
    resolved: bool = Field(description="Whether the link points at an existing note.")


class BacklinksOut(ToolOutput):
    target: str = Field(description="The note the links point at.")
    items: list[BacklinkItem] = Field(description="One item per linking occurrence.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


class OutlinksOut(ToolOutput):
    source: str = Field(description="The note whose links are listed.")
    items: list[OutlinkItem] = Field(description="One item per link, in file order.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


def _link_fields(edge: Edge, lines: LineText) -> dict[str, object]:
    return {
        "line": edge.line + 1,
        "text": lines.get(edge.source, edge.line, edge.target_raw),
        "target": echoed(edge.target_raw),
        "subpath": echoed(edge.subpath),
        "alias": echoed(edge.alias),
        "embed": edge.embed,
        "kind": edge.kind,
        "property": edge.property,
    }


async def get_backlinks(ctx: ToolContext, args: PathIn) -> BacklinksOut:
    vp = await linked_file(ctx, args.path)
    ctx.vault.files.stat(vp)
    offset = decode_cursor(args.cursor, t="backlinks", p=vp.rel)
    edges: list[Edge] | None = None
    if ctx.walk_filter() is None:  # no rule hides a source: the page is cut in SQL (a hub has thousands)
        want = offset + args.limit + 1 + GONE_SLACK
        fetched = await queries(ctx).first_backlinks(ctx.vault.id, vp.rel, want)
        kept = await drop_gone(ctx, fetched, offset, args.limit, paths=lambda e: (e.source,))
        if len(fetched) < want or len(kept) > offset + args.limit:
            edges = kept  # all of them, or the page and the sign that more follow
    if edges is None:
        edges = [e for e in await queries(ctx).backlinks(ctx.vault.id, [vp.rel]) if ctx.can_read(e.source)]
        edges = await drop_gone(ctx, edges, offset, args.limit, paths=lambda e: (e.source,))
    page, cursor = page_of(edges, offset, args.limit, t="backlinks", p=vp.rel)
    lines = LineText(ctx)
    items = [BacklinkItem(**note_item(ctx, e.source, e.source_title), **_link_fields(e, lines)) for e in page]
    return BacklinksOut(target=vp.rel, items=items, next_cursor=cursor)


async def get_outlinks(ctx: ToolContext, args: PathIn) -> OutlinksOut:
    vp = await linked_file(ctx, args.path)
    ctx.vault.files.stat(vp)
    offset = decode_cursor(args.cursor, t="outlinks", p=vp.rel)
    edges = [
        e if e.target_path is None or ctx.can_read(e.target_path) else hide_target(e)
        for e in await queries(ctx).outlinks(ctx.vault.id, vp.rel)
    ]
    # A target deleted since the index saw it is what it now is: no note (the index catches up).
    gone = set(await missing(ctx, {e.target_path for e in edges if e.target_path is not None}))
    if gone:
        edges = [hide_target(e) if e.target_path in gone else e for e in edges]
        forget_gone(ctx, gone)
    page, cursor = page_of(edges, offset, args.limit, t="outlinks", p=vp.rel)
    lines = LineText(ctx)
    items: list[OutlinkItem] = []
    for e in page:
        path, title = target_note(e.target_path, e.target_title, e.target_raw, vp.rel)
        item = note_item(ctx, path, title)
        if e.target_path is None and echoed(path) != path:  # a cut name is no path to create: the linking note
            item.update(path=echoed(path), title=echoed(title), obsidian_url=ctx.vault.url(vp.rel))
        elif e.target_path is None:
            item["obsidian_url"] = ctx.vault.new_url(strip_md(path))
        items.append(OutlinkItem(**item, resolved=e.target_path is not None, **_link_fields(e, lines)))
    return OutlinksOut(source=vp.rel, items=items, next_cursor=cursor)


class NeighborsIn(ToolInput, Paging):
    path: str = Field(description="Start note. " + NOTE_ADDRESS + FILE_ADDRESS)
    depth: int = Field(default=1, ge=1, le=5, description="How many link hops to follow.")
    direction: Literal["in", "out", "both"] = Field(
        default="both", description="Follow outgoing links, backlinks, or both."
    )
    max_nodes: int = Field(default=200, ge=1, le=2000, description="Stop exploring after this many notes.")


class NeighborItem(NoteItem):
    distance: int = Field(description="Hops from the start note.")
    via: str = Field(description="The note one hop closer to the start through which it was reached.")
    direction: Literal["in", "out"] = Field(description="'out' when `via` links to it, 'in' when it links to `via`.")


class NeighborsOut(ToolOutput):
    start: str = Field(description="The start note.")
    items: list[NeighborItem] = Field(description="Reached notes, nearest first, then by path.")
    truncated: bool = Field(description="True when max_nodes stopped the exploration.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


async def graph_neighbors(ctx: ToolContext, args: NeighborsIn) -> NeighborsOut:
    vp = await linked_file(ctx, args.path)
    ctx.vault.files.stat(vp)
    state = {"t": "neighbors", "p": vp.rel, "d": args.depth, "r": args.direction, "m": args.max_nodes}
    offset = decode_cursor(args.cursor, **state)
    q = queries(ctx)
    seen: dict[str, tuple[int, str, str]] = {vp.rel: (0, "", "out")}
    frontier = [vp.rel]
    truncated = False
    for distance in range(1, args.depth + 1):
        if not frontier or truncated:
            break
        reached: list[str] = []
        hops = await q.neighbors_of(ctx.vault.id, frontier, args.direction)
        gone = set(await missing(ctx, {other for _, other, _ in hops if other not in seen}))
        forget_gone(ctx, gone)
        for origin, other, way in hops:
            if other in seen or other in gone or not ctx.can_read(other):
                continue
            if len(seen) - 1 >= args.max_nodes:
                truncated = True
                break
            seen[other] = (distance, origin, way)
            reached.append(other)
        frontier = reached
    found = sorted((d, p) for p, (d, _, _) in seen.items() if p != vp.rel)
    page, cursor = page_of(found, offset, args.limit, **state)
    titles = await q.titles(ctx.vault.id, [p for _, p in page])
    items = [
        NeighborItem(
            **note_item(ctx, p, titles.get(p)),
            distance=d,
            via=seen[p][1],
            direction="out" if seen[p][2] == "out" else "in",
        )
        for d, p in page
    ]
    return NeighborsOut(start=vp.rel, items=items, truncated=truncated, next_cursor=cursor)


class BrokenIn(ToolInput, Paging):
    folder: str | None = Field(default=None, description="Only notes under this folder.")


class BrokenLinksIn(BrokenIn):
    subpaths: bool = Field(
        default=True,
        description="Also list links to an existing note whose #Heading (a #A#B heading path) or #^block names "
        "none there, e.g. after the heading was renamed (reason 'no_heading' / 'no_block'); false: only links "
        "to no note (reason 'no_note').",
    )


class BrokenItem(NoteItem):
    """`path` is the note holding the broken link."""

    line: int = Field(description="1-based line of the link.")
    text: str = Field(description=LINE_TEXT_DESCRIPTION)
    target: str = Field(
        description=f"The link's target as written, without its #subpath ('' for [[#Heading]]; {CUT_RULE})."
    )
    kind: str = Field(description="'wikilink' or 'markdown'.")
    embed: bool = Field(description="True for an embed.")
    property: str | None = Field(
        default=None,
        description='The frontmatter property the link is written in (`up: "[[Hub]]"`, a list item); absent for '
        "a link in the note's body.",
    )
    reason: Reason = Field(
        description="'no_note': the target resolves to no note; 'no_heading' / 'no_block': the note exists "
        "(`target_path`) but has no heading or block id the link's `subpath` names."
    )
    subpath: str | None = Field(
        default=None, description=f"The heading (path) or ^block the link points into ({CUT_RULE})."
    )
    target_path: str | None = Field(
        default=None, description="For 'no_heading' / 'no_block': the note the link resolves to."
    )
    suggestions: list[str] | None = Field(
        default=None,
        description="For 'no_heading' / 'no_block': up to 5 subpaths of the target to write after '#' instead, "
        "the closest first: its headings as a link writes them (a heading path's found parts kept: "
        "'Plan#Goals'), or its block ids ('^id'); empty when it has none.",
    )


class BrokenOut(ToolOutput):
    items: list[BrokenItem] = Field(
        description="Broken links, by note path, line and position (a line's wikilinks before its Markdown links)."
    )
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


def _folder_prefix(ctx: ToolContext, folder: str | None) -> str:
    if not folder:
        return ""
    vp = ctx.folder(folder, field="folder")
    return f"{vp.rel}/" if vp.rel else ""


async def find_broken_links(ctx: ToolContext, args: BrokenLinksIn) -> BrokenOut:
    prefix = _folder_prefix(ctx, args.folder)
    state = {"t": "broken", "f": prefix, "s": int(args.subpaths)}
    offset = decode_cursor(args.cursor, **state)
    readable = None if unrestricted(ctx) else ctx.can_read
    if args.subpaths:  # both reads at once, each in a reader's thread
        edges, problems = await asyncio.gather(
            queries(ctx).broken(ctx.vault.id, readable), section_problems(ctx, readable)
        )
        found: list[Edge | Problem] = [*edges, *problems]
        found.sort(key=lambda f: _order(f.edge if isinstance(f, Problem) else f))
    else:
        found = list(await queries(ctx).broken(ctx.vault.id, readable))
    found = [f for f in found if _source(f).startswith(prefix) and ctx.can_read(_source(f))]
    found = await drop_gone(ctx, found, offset, args.limit, paths=lambda f: (_source(f),))
    page, cursor = page_of(found, offset, args.limit, **state)
    shown = [f for f in page if isinstance(f, Problem)]
    suggestions = iter(await SubpathLinks(ctx.services.db).suggestions(shown) if shown else [])
    lines = LineText(ctx)
    items: list[BrokenItem] = []
    for f in page:
        e = f.edge if isinstance(f, Problem) else f
        item = BrokenItem(
            **note_item(ctx, e.source, e.source_title),
            line=e.line + 1,
            text=lines.get(e.source, e.line, e.target_raw),
            target=echoed(e.target_raw),
            kind=e.kind,
            embed=e.embed,
            property=e.property,
            reason="no_note",
            subpath=echoed(e.subpath),
        )
        if isinstance(f, Problem):
            item.reason, item.target_path, item.suggestions = f.reason, e.target_path, next(suggestions)
        items.append(item)
    return BrokenOut(items=items, next_cursor=cursor)


def _order(edge: Edge) -> tuple[str, int, int]:
    return edge.source, edge.line, edge.link_id


def _source(found: Edge | Problem) -> str:
    return found.edge.source if isinstance(found, Problem) else found.source


class OrphansOut(ToolOutput):
    items: list[NoteItem] = Field(description="Notes with no resolved links in or out, by path.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


async def find_orphans(ctx: ToolContext, args: BrokenIn) -> OrphansOut:
    prefix = _folder_prefix(ctx, args.folder)
    offset = decode_cursor(args.cursor, t="orphans", f=prefix)
    readable = None if unrestricted(ctx) else ctx.can_read
    found = await queries(ctx).orphans(ctx.vault.id, readable)
    rows = [r for r in found if r[0].startswith(prefix) and ctx.can_read(r[0])]
    rows = await drop_gone(ctx, rows, offset, args.limit, paths=lambda r: (r[0],))
    page, cursor = page_of(rows, offset, args.limit, t="orphans", f=prefix)
    return OrphansOut(items=[NoteItem(**note_item(ctx, p, t)) for p, t in page], next_cursor=cursor)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="get_backlinks",
        domain="graph",
        title="Backlinks of a note",
        description="Notes linking to a note, each with the 1-based line number and text of the linking line; "
        "also to a canvas, a base or an attachment (which notes embed 'cover.jpg'). Links out of a note: "
        "get_outlinks; several hops: graph_neighbors.",
        input_model=PathIn,
        output_model=BacklinksOut,
        handler=get_backlinks,
    ),
    ToolSpec(
        name="get_outlinks",
        domain="graph",
        title="Outgoing links of a note",
        description="Links in a note (or a canvas), in file order, with the linking line and whether each "
        "resolves. Notes linking to it: get_backlinks.",
        input_model=PathIn,
        output_model=OutlinksOut,
        handler=get_outlinks,
    ),
    ToolSpec(
        name="graph_neighbors",
        domain="graph",
        title="Link neighbourhood",
        description="Notes within n link hops of a note (outgoing, incoming or both), nearest first, capped. "
        "For one hop with the linking lines use get_backlinks / get_outlinks.",
        input_model=NeighborsIn,
        output_model=NeighborsOut,
        handler=graph_neighbors,
    ),
    ToolSpec(
        name="find_broken_links",
        domain="graph",
        title="Find broken links",
        description="Links that point at no existing note, or (subpaths, the default) at a #Heading or "
        "#^block the note lacks, with the source note, line, reason and the target's closest headings or blocks.",
        input_model=BrokenLinksIn,
        output_model=BrokenOut,
        handler=find_broken_links,
    ),
    ToolSpec(
        name="find_orphans",
        domain="graph",
        title="Find orphan notes",
        description="Notes with no resolved link to or from another note.",
        input_model=BrokenIn,
        output_model=OrphansOut,
        handler=find_orphans,
    ),
)
