"""notes domain, reading: get_outline — a note's headings and block ids, with the address each
one is read by, without its text.

The headings are those `read_note` finds a section by (`service.markdown.outline.Outliner`: not
in code, a comment or the frontmatter); each comes with its section's lines as `read_note` gives
them (trailing empty lines left out), its heading path and `link`, the subpath that reads this
section alone (`Note#<link>`), checked with `sections.heading_span`, the function `read_note`
finds a heading by. A note longer than an answer may hold is read by its lines from the file
(`part_reads.each_line`), never held whole. An answer lists a page of `limit` headings and as many
block ids, `next_cursor` the rest (a cursor names the note's version: it changed, outline it again).
The reading of a note listed by pages is kept for its next pages (`Services.outlines`, a
`KeptReadings` the app owns, by the note's etag): a page after the first hashes the file and reads
no line of it again when the note is unchanged.

Touches: vault files (read only, through `VaultFiles`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from functools import partial
from typing import BinaryIO

from pydantic import Field

from service.errors import ValidationFailed
from service.graph.address import Address
from service.markdown import frontmatter as fm
from service.markdown import line_ends, sections
from service.markdown.outline_reading import OutlineReading
from service.markdown.parse import Heading
from service.tools.context import ToolContext
from service.tools.models import NOTE_ADDRESS, Paging, ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.notes import part_reads
from service.tools.spec import ToolSpec
from service.vault import offloop
from service.vault.paths import VaultPath

# Headings read while checking the subpaths of headings sharing a link text (each check reads every
# heading of the note: 20,000 headings named alike took 45 s); past it such a heading's link is null.
MAX_VISITS = 2_000_000


class OutlineIn(ToolInput, Paging):
    path: str = Field(description=NOTE_ADDRESS)
    max_level: int | None = Field(
        default=None, ge=1, le=6, description="Only headings of this level or higher (1: '#' only); all by default."
    )
    limit: int = Field(
        default=200,
        ge=1,
        le=1000,
        description="Headings a page lists, and as many block ids (the next ones by `next_cursor`).",
    )


class OutlineHeading(ToolOutput):
    level: int = Field(description="1 for '#', up to 6.")
    text: str = Field(description="The heading's text as written (without the '#'s).")
    line: int = Field(description="Its line (1-based).")
    end_line: int = Field(description="The last line of its section (sub-sections included), as read_note gives it.")
    path: list[str] = Field(
        description="Its heading path, outermost first, e.g. ['Plan', 'Goals'] (as read_note's heading, ambiguous "
        "where a deeper heading has its outermost's name: `link` is not)."
    )
    link: str | None = Field(
        description="The subpath a wikilink to it uses: read_note 'Note#<link>' reads this section. Null when no "
        "heading address names it alone (two sections with the same heading path; or, in a note of thousands of "
        "headings named alike, one past those checked): read it by its lines."
    )


class OutlineBlock(ToolOutput):
    id: str = Field(description="The block id, without '^' (read_note 'Note#^<id>' reads the block).")
    start_line: int = Field(description="The block's first line (1-based).")
    line: int = Field(description="The line that carries '^<id>'.")


class OutlineOut(ToolOutput):
    path: str = Field(description="Vault-relative path of the note.")
    etag: str = Field(description="Content hash, as read_note gives it.")
    total_lines: int = Field(description="Lines in the note.")
    headings: list[OutlineHeading] = Field(description="Headings in note order (of max_level or higher): this page's.")
    blocks: list[OutlineBlock] = Field(description="Block ids in note order: this page's.")
    headings_total: int = Field(description="Headings in the note (of max_level or higher), on every page.")
    blocks_total: int = Field(description="Block ids in the note.")
    next_cursor: str | None = Field(
        default=None,
        description="Pass as `cursor` for the next page (the next `limit` headings and block ids); absent on the "
        "last. A cursor of an earlier version of the note is refused (reason 'stale_cursor'): outline it again.",
    )


def _names(
    headings: list[Heading],
    total: int,
    at: int,
    path: list[int],
    keys: Counter[str],
    ends: list[int],
    budget: list[int],
    checked: dict[tuple[int, int, str], int | None],
) -> str | None:
    """The shortest subpath (`A#B`) that `read_note` reads heading `at` by: its own link text when
    no other heading has it, else with its nearest ancestors before it, else from its outermost; None when none does, or
    when checking it would read more than `budget[0]` headings (what is read is taken from it).
    `ends`: the index of the heading that ends each one's section (`_ends`); `checked`: the line each
    subpath read in a range of headings found (None: none), kept for the page, so the headings named
    alike on a page read the note's headings once, not once each (a page of 200 of 10,000 '## Same'
    read 2,000,000 headings, 3.9 s of CPU, per page)."""
    own = sections.link_text(headings[at].text)
    if keys[sections.link_key(headings[at].text)] == 1 and own and not own.startswith("^"):
        return own  # the only heading of its key: read_note's first match or its link_key match
    tried = [*([path[i], at] for i in range(len(path) - 2, -1, -1)), path]  # its text alone names several
    for chain in tried:
        subpath = "#".join(sections.link_text(headings[i].text) for i in chain)
        heading = Address("", subpath, None, False).heading
        if heading is None or "^" in subpath[:1]:
            continue
        first, end, lines = 0, len(headings), total
        if len(chain) > 1 and keys[sections.link_key(headings[chain[0]].text)] == 1:  # read inside its section only
            first, end = chain[0], ends[chain[0]]
            lines = headings[end].line if end < len(headings) else total
        key = (first, end, subpath)
        if key not in checked:
            budget[0] -= (end - first) * len(heading)
            if budget[0] < 0:
                return None
            try:
                checked[key] = sections.heading_span(headings[first:end], lines, heading).start
            except ValidationFailed:
                checked[key] = None
        if checked[key] == headings[at].line:
            return subpath
    return None


def _ends(headings: list[Heading]) -> list[int]:
    """The index of the heading that ends each heading's section (the next of its level or higher;
    len(headings) for none)."""
    ends = [len(headings)] * len(headings)
    open_: list[int] = []
    for i, h in enumerate(headings):
        while open_ and headings[open_[-1]].level >= h.level:
            ends[open_.pop()] = i
        open_.append(i)
    return ends


@dataclass(frozen=True, slots=True)
class _Page:
    headings: list[OutlineHeading]
    blocks: list[OutlineBlock]
    headings_total: int
    blocks_total: int


def _outline(reading: OutlineReading, max_level: int | None, offset: int, limit: int) -> _Page:
    """The page of `limit` headings and block ids from the `offset`th of each (in a worker thread for
    a long note: `service.vault.offloop`); only its headings' links are looked for."""
    headings, total = reading.outliner.headings, reading.lines
    keys = Counter(sections.link_key(h.text) for h in headings)
    ends = _ends(headings)
    filled = {**reading.filled_before, total: reading.filled}
    out: list[OutlineHeading] = []
    open_: list[int] = []  # the headings whose sections hold the current one, outermost first
    budget = [MAX_VISITS]
    checked: dict[tuple[int, int, str], int | None] = {}
    listed = 0  # headings of max_level or higher so far
    for i, h in enumerate(headings):
        while open_ and headings[open_[-1]].level >= h.level:
            open_.pop()
        open_.append(i)
        if max_level is not None and h.level > max_level:
            continue
        listed += 1
        if not offset < listed <= offset + limit:
            continue
        link = _names(headings, total, i, open_, keys, ends, budget, checked)
        end = headings[ends[i]].line if ends[i] < len(headings) else total
        last = max(h.line, filled.get(end, h.line))
        path = [headings[j].text for j in open_]
        out.append(OutlineHeading(level=h.level, text=h.text, line=h.line + 1, end_line=last + 1, path=path, link=link))
    found = reading.outliner
    ids = list(found.found.items())
    blocks = [
        OutlineBlock(id=b, start_line=found.block_starts[b] + 1, line=no + 1) for b, no in ids[offset : offset + limit]
    ]
    return _Page(out, blocks, listed, len(ids))


def _read_text(text: str, max_level: int | None, offset: int, limit: int) -> tuple[OutlineReading, _Page]:
    """`_outline` of a note's text (held: it fits an answer)."""
    text = line_ends.lf(text)  # a CR alone ends a line, as read_note reads it
    reading = OutlineReading()
    body_line = fm.fences(text).body_line
    for no, line in enumerate(text.split("\n")):
        reading.take(no, line, body_line)
    return reading, _outline(reading, max_level, offset, limit)


def _read_file(
    fh: BinaryIO, limit: int, cap: int, max_level: int | None, offset: int, page: int
) -> tuple[OutlineReading, str, _Page]:
    """`_outline` of a note read by its lines from its open file (`part_reads.each_line`)."""
    reading = OutlineReading()
    etag = part_reads.each_line(fh, limit, cap, reading.take, "get_outline")[1]
    return reading, etag, _outline(reading, max_level, offset, page)


def _hash(fh: BinaryIO) -> str:
    """The etag of the open file (`etag_of` of its bytes), read a chunk at a time."""
    sha = hashlib.sha256()
    while chunk := fh.read(1 << 20):
        sha.update(chunk)
    return sha.hexdigest()[:32]


async def _kept(
    ctx: ToolContext, vp: VaultPath, cursor: str, max_level: int | None, size: int
) -> tuple[OutlineReading, str] | None:
    """The reading kept for the note a cursor pages (`Services.outlines`) and its etag, when the note is still
    that version, checked by its hash; `stale_cursor` when it changed; None when none is kept."""
    etag = await offloop.sized(size, ctx.vault.files.scan, vp, _hash, bounded=True)
    _same_version(cursor, vp.rel, max_level, etag)
    reading = ctx.services.outlines.get(ctx.vault.id, vp.rel, etag)
    return None if reading is None else (reading, etag)


async def get_outline(ctx: ToolContext, args: OutlineIn) -> OutlineOut:
    vp = (await ctx.find_note(args.path, "read")).vp
    offset = decode_cursor(args.cursor, t="outline", p=vp.rel, m=args.max_level)  # before any reading
    limit = ctx.services.settings.governor.max_response_bytes
    size = ctx.vault.files.stat(vp).size
    kept = await _kept(ctx, vp, args.cursor, args.max_level, size) if args.cursor else None
    if kept is not None:  # a next page of an unchanged note: no line read again
        reading, etag = kept
        page = await offloop.sized(size, _outline, reading, args.max_level, offset, args.limit)
    elif size > limit:  # read by its lines, never held whole
        cap = ctx.services.settings.limits.max_indexed_note_chars
        scan = partial(_read_file, limit=limit, cap=cap, max_level=args.max_level, offset=offset, page=args.limit)
        reading, etag, page = await offloop.sized(size, ctx.vault.files.scan, vp, scan, bounded=True)
    else:
        note = await offloop.read(ctx.vault.files.read, vp)
        reading, page = await offloop.sized(
            len(note.content), _read_text, note.content, args.max_level, offset, args.limit
        )
        etag = note.etag
    if args.cursor:
        _same_version(args.cursor, vp.rel, args.max_level, etag)
    more = offset + args.limit < max(page.headings_total, page.blocks_total)
    if more and kept is None:
        ctx.services.outlines.keep(ctx.vault.id, vp.rel, etag, reading)
    return OutlineOut(
        path=vp.rel,
        etag=etag,
        total_lines=reading.total_lines(),
        headings=page.headings,
        blocks=page.blocks,
        headings_total=page.headings_total,
        blocks_total=page.blocks_total,
        next_cursor=encode_cursor(offset + args.limit, t="outline", p=vp.rel, m=args.max_level, e=etag)
        if more
        else None,
    )


def _same_version(cursor: str, rel: str, max_level: int | None, etag: str) -> None:
    """A cursor given for an earlier version of the note is refused: its pages would skip or repeat."""
    try:
        decode_cursor(cursor, t="outline", p=rel, m=max_level, e=etag)
    except ValidationFailed:
        raise ValidationFailed(
            "the note changed since that page was listed: outline it again without a cursor",
            details={"field": "cursor", "reason": "stale_cursor", "etag": etag},
        ) from None


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="get_outline",
        domain="notes",
        title="Outline of a note",
        description="A note's headings (level, text, line, the last line of its section, heading path, and the "
        "link subpath that reads that section: read_note 'Note#<link>') and block ids with their lines, without "
        "its text, by pages of `limit` (next_cursor: the rest). Headings in code, comments or frontmatter are not "
        "headings. To read a section use read_note.",
        input_model=OutlineIn,
        output_model=OutlineOut,
        handler=get_outline,
        reads_index=False,
    ),
)
