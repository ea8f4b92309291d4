"""graph domain, suggest: suggest_links, links a note could have.

Touches: index tables `notes`, `links` (read only, through `service.tools.graph.views`); vault
files (the text of the notes scanned, read from disk so lines are the file's own).

Two kinds of suggestion (method: `service.graph.mentions`, `service.graph.analytics.adamic_adar`):
- unlinked mentions: where a note's text names another note (file name, title or alias; whole
  words, any letter case) outside frontmatter, code and links, and the note does not link to it
  yet; each with its line and the wikilink to write;
- related notes (`related`, for one note): notes that share linked neighbours with it but are not
  linked with it, by Adamic-Adar score.
Only notes the caller may read are mentioned, suggested or scanned. For one note, every mention
is listed (paged). For the vault or a folder, notes are scanned in path order until the page is
full or `SCAN_NOTES` notes were read; `next_cursor` goes on from there, so a page may hold fewer
than `limit` suggestions while more remain: follow the cursor until it is null.
"""

from __future__ import annotations

import asyncio
import base64
import json

from pydantic import Field

from service.errors import ValidationFailed
from service.graph import analytics as ga
from service.graph.linkpath import strip_md
from service.graph.mentions import Mention, NameIndex, mentions
from service.markdown.parse import note_title
from service.tools.context import ToolContext
from service.tools.graph.views import VIEWS, View
from service.tools.graph_common import NoteItem, note_item
from service.tools.models import Paging, ToolInput, ToolOutput, decode_cursor, encode_cursor, page_of
from service.tools.search_common import FOLDER_FIELD, FolderArg, Partial, forget_gone, partial, scope
from service.tools.spec import ToolSpec

SCAN_NOTES = 500  # notes read per page when the whole vault or a folder is scanned


class SuggestIn(ToolInput, Paging):
    path: str | None = Field(
        default=None,
        description="The note to find suggestions for (path, bare name or alias); default: every note, "
        "or those in `folder`, in path order.",
    )
    folder: FolderArg = FOLDER_FIELD
    related: int = Field(
        default=0,
        ge=0,
        le=50,
        description="With `path`: also list up to this many notes sharing linked neighbours with it (Adamic-Adar).",
    )


class MentionItem(NoteItem):
    """`path` is the note holding the mention."""

    line: int = Field(description="1-based line of the mention.")
    text: str = Field(description="That line's text.")
    column: int = Field(description="1-based character position of the mention in the line.")
    mention: str = Field(description="The words as written.")
    target: str = Field(description="The note they name.")
    target_title: str = Field(description="Its title.")
    kind: str = Field(description="What of the target they match: 'name' (file name), 'title' or 'alias'.")
    link: str = Field(description="The wikilink to write instead of the words.")


class RelatedItem(NoteItem):
    score: float = Field(description="Adamic-Adar score: sum of 1/log(degree) of the shared neighbours.")
    shared: list[str] = Field(description="The neighbours both notes are linked with, by path.")


class SuggestOut(ToolOutput, Partial):
    items: list[MentionItem] = Field(description="Unlinked mentions, by note path then line.")
    related: list[RelatedItem] = Field(description="Notes sharing neighbours with `path` (with `related`).")
    scanned: int = Field(description="Notes whose text this page read.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page.")


def _link(m: Mention) -> str:
    name = strip_md(m.target.rsplit("/", 1)[-1])
    return f"[[{name}]]" if m.mention == name else f"[[{name}|{m.mention}]]"


def _item(ctx: ToolContext, view: View, m: Mention) -> MentionItem:
    title = view.titles.get(m.target) or note_title(m.target)
    return MentionItem(
        **note_item(ctx, m.source, view.titles.get(m.source)),
        line=m.line + 1,
        text=m.text,
        column=m.start + 1,
        mention=m.mention,
        target=m.target,
        target_title=title,
        kind=m.kind,
        link=_link(m),
    )


def _scan(ctx: ToolContext, view: View, names: NameIndex, path: str) -> list[Mention] | None:
    """The note's unlinked mentions; None when it cannot be read (gone meanwhile)."""
    try:
        text = ctx.vault.files.read(ctx.vault.paths.resolve(path)).content
    except Exception:  # noqa: BLE001 - a vanished or unreadable note has nothing to suggest
        return None
    g = view.graph
    at = g.index.get(path)
    linked = [g.nodes[int(j)] for j in g.out_csr().row(at)] if at is not None else []
    return mentions(path, text, names, linked)


def _skip(cursor: str | None) -> int:
    """Mentions of the cursor's note already listed on earlier pages."""
    if not cursor:
        return 0
    try:
        raw = base64.urlsafe_b64decode((cursor + "=" * (-len(cursor) % 4)).encode())
        return max(0, int(json.loads(raw).get("k", 0)))
    except (ValueError, TypeError, AttributeError):
        raise ValidationFailed("invalid cursor", details={"field": "cursor"}) from None


async def suggest_links(ctx: ToolContext, args: SuggestIn) -> SuggestOut:
    view = await VIEWS.get(ctx)
    names = await asyncio.to_thread(view.names)
    if args.path is not None:
        return await _one_note(ctx, view, names, args)
    folders = scope(ctx, args.folder)
    state = {"t": "suggest", "f": folders}
    start = decode_cursor(args.cursor, **state)
    skip = _skip(args.cursor)
    sources = [p for p, _, _ in view.notes if not folders or any(f == "" or p.startswith(f + "/") for f in folders)]
    items: list[MentionItem] = []
    gone: list[str] = []
    at, scanned, cursor = start, 0, None
    while at < len(sources):
        if scanned >= SCAN_NOTES:
            cursor = encode_cursor(at, **state, k=0)
            break
        found = await asyncio.to_thread(_scan, ctx, view, names, sources[at])
        scanned += 1
        if found is None:
            gone.append(sources[at])
            found = []
        found = found[skip:]
        room = args.limit - len(items)
        items += [_item(ctx, view, m) for m in found[:room]]
        if len(found) > room:
            cursor = encode_cursor(at, **state, k=skip + room)
            break
        skip = 0
        at += 1
        if len(items) >= args.limit and at < len(sources):
            cursor = encode_cursor(at, **state, k=0)
            break
    forget_gone(ctx, gone)
    return SuggestOut(items=items, related=[], scanned=scanned, next_cursor=cursor, partial=partial(ctx))


async def _one_note(ctx: ToolContext, view: View, names: NameIndex, args: SuggestIn) -> SuggestOut:
    assert args.path is not None
    vp = (await ctx.find_note(args.path, "read")).vp
    ctx.vault.files.stat(vp)
    state = {"t": "suggest", "p": vp.rel}
    offset = decode_cursor(args.cursor, **state)
    found = await asyncio.to_thread(_scan, ctx, view, names, vp.rel) or []
    page, cursor = page_of(found, offset, args.limit, **state)
    related: list[RelatedItem] = []
    if args.related and vp.rel in view.graph.index:
        near = await asyncio.to_thread(ga.adamic_adar, view.graph, vp.rel, args.related)
        related = [
            RelatedItem(**note_item(ctx, p, view.titles.get(p)), score=float(f"{s:.6g}"), shared=shared)
            for p, s, shared in near
        ]
    return SuggestOut(
        items=[_item(ctx, view, m) for m in page],
        related=related,
        scanned=1,
        next_cursor=cursor,
        partial=partial(ctx),
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="suggest_links",
        domain="graph",
        title="Suggest links",
        description="Unlinked mentions: where a note (or every note) names another note's file name, title or "
        "alias without linking it, with the line and the wikilink to write; optionally notes sharing linked "
        "neighbours with it. In text written without spaces (Chinese, Japanese, Thai) a name is matched "
        "character by character, the longest name winning where names overlap: 京都 is found inside 東京都 "
        "unless a note named 東京都 or 東京 takes that place (no word segmentation).",
        input_model=SuggestIn,
        output_model=SuggestOut,
        handler=suggest_links,
    ),
)
