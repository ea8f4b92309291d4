"""notes domain, reading: read_note, read_notes, note_info (listings: `listing.py`).

Touches: vault files (read only, through `VaultFiles`); index tables `notes`, `links` for link
counts in note_info. Writing tools live in `write.py`, `files.py` and `bulk.py`.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Literal

from pydantic import Field, model_validator

from service.errors import (
    AclDenied,
    AmbiguousNote,
    ComputeBudgetExceeded,
    NotANote,
    NoteNotFound,
    Overflow,
    PathInvalid,
    ValidationFailed,
)
from service.graph.address import Address
from service.indexer.caps import MAX_TAGS, kept_text
from service.markdown import frontmatter as fm
from service.markdown import line_ends, sections
from service.markdown.parse import ParsedNote, note_title, parse_note
from service.tools.context import FoundNote, ToolContext
from service.tools.models import NOTE_ADDRESS, HeadingPath, ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.notes import base_reads, part_reads
from service.tools.notes.note_facts import note_facts
from service.tools.notes.part_reads import HEADING_MATCHES
from service.tools.notes.part_reads import heading_lines as _matches
from service.tools.notes.part_reads import line_too_long as _line_too_long
from service.tools.notes.part_reads import too_long as _too_long
from service.tools.spec import ToolSpec
from service.vault import offloop
from service.vault.decoding import UTF8
from service.vault.files import NoteFile


class NoteMeta(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title: the file name without '.md', as in Obsidian.")
    obsidian_url: str = Field(description="obsidian://open URL.")
    etag: str = Field(description="Content hash; pass as expected_etag to modify safely.")
    size: int = Field(description="Size in bytes.")
    mtime: float = Field(description="Modification time (Unix seconds).")


def meta(ctx: ToolContext, note: NoteFile, title: str) -> dict[str, Any]:
    return {
        "path": note.path.rel,
        "title": title,
        "obsidian_url": ctx.vault.url(note.path.rel),
        "etag": note.etag,
        "size": note.stat.size,
        "mtime": note.stat.mtime,
    }


# -- read_note ---------------------------------------------------------------------------------


class ReadNoteIn(ToolInput):
    path: str = Field(description=NOTE_ADDRESS + " 'Note#Heading' or 'Note#^block' reads that section.")
    heading: HeadingPath | None = Field(
        default=None, description="Only this section: heading texts from the outermost down, e.g. ['Plan', 'Goals']."
    )
    start_line: int | None = Field(default=None, ge=1, description="Only lines from this one (1-based, inclusive).")
    end_line: int | None = Field(default=None, ge=1, description="Only lines up to this one (1-based, inclusive).")
    part: Literal["all", "frontmatter", "body"] = Field(
        default="all", description="The whole note, only its frontmatter YAML, or only the body."
    )

    @model_validator(mode="after")
    def _one_selector(self) -> ReadNoteIn:
        chosen = sum(x is not None for x in (self.heading, self.start_line or self.end_line)) + (self.part != "all")
        if chosen > 1:
            raise ValueError("choose one of heading, a line range, or part")
        if self.start_line and self.end_line and self.end_line < self.start_line:
            raise ValueError("end_line is before start_line")
        return self


class ReadNoteOut(NoteMeta):
    content: str = Field(description="The requested text.")
    properties: dict[str, Any] = Field(description="Frontmatter properties.")
    tags: list[str] = Field(description="Tags from frontmatter and body, without '#'.")
    links: list[str] = Field(description="Link targets as written, in order of appearance.")
    total_lines: int = Field(description="Lines in the whole note.")
    start_line: int = Field(description="First line of `content` in the note (1-based).")
    end_line: int = Field(description="Last line of `content` in the note (1-based).")
    frontmatter_error: str | None = Field(default=None, description="Set when the YAML is invalid.")
    encoding: str | None = Field(
        default=None,
        description="Set when the file is not UTF-8: the encoding it was read with ('cp1252', 'latin-1', "
        "'utf-16-le', …; 'utf-8-replaced': broken sequences shown as U+FFFD). Editing the note saves it as UTF-8.",
    )
    heading_matches: list[int] | None = Field(default=None, description=HEADING_MATCHES)

    def to_text(self) -> str:
        return self.content


def _section(note: str, address: Address) -> tuple[str, list[int] | None]:
    """(content, the lines of a repeated heading's sections) of an address's section: '#^block'
    or a heading path '#A#B' (`_section_of`)."""
    text = line_ends.lf(note)
    content, first, _, matches = _section_of(text, address)
    return line_ends.as_written(content, note, text, first), matches


def _section_of(text: str, address: Address) -> tuple[str, int, int, list[int] | None]:
    """(content, first, last line, `_matches`) of a block or of the first section of a heading path."""
    if address.block is not None:
        span = sections.find_block(text, address.block)
        lines = text.split("\n")
        return "\n".join(lines[span.start : span.end]) + "\n", span.start + 1, span.end, None
    span = sections.find_heading(text, address.heading or [], first=True)
    content = sections.section_text(text, span)
    return content, span.start + 1, span.start + content.count("\n"), _matches(span.matches)


async def read_note(ctx: ToolContext, args: ReadNoteIn) -> ReadNoteOut:
    if (base := await base_reads.base_named(ctx, args.path)) is not None:  # an Obsidian base: its YAML
        lines = (args.start_line, args.end_line)
        return ReadNoteOut(**await base_reads.read_base(ctx, *base, lines=lines, heading=args.heading, part=args.part))
    found = await ctx.find_note(args.path, "read", section="keep")
    selected = args.heading is not None or args.start_line or args.end_line or args.part != "all"
    if found.subpath is not None and selected:
        raise ValidationFailed(
            "the path already names a section ('#…'): choose one of it, heading, a line range, or part",
            details={"field": "path", "subpath": found.subpath},
        )
    vp = found.vp
    limit = ctx.services.settings.governor.max_response_bytes
    if (size := found.stat.st_size if found.stat is not None else ctx.vault.files.stat(vp).size) > limit:
        if found.subpath is None and not selected:
            raise _too_long(size, limit)  # its text alone is more: not read (a 50 MB note was, and its answer built)
        return await _long_part(ctx, found, args, limit, size)  # read by its lines, never held whole
    note = await offloop.sized(size, ctx.vault.files.read, vp)  # by find_note's stat: two syscalls less a read
    text = note.content
    facts = await note_facts(ctx, vp.rel, note.etag, text)
    if facts.frontmatter_error is not None:
        await _tell_invalid_frontmatter(ctx, vp.rel, facts.frontmatter_error)
    content, first, last, total, matches = await offloop.sized(len(text), _selected, text, found, args, limit)
    return ReadNoteOut(
        **meta(ctx, note, facts.title),
        content=content,
        properties=facts.properties,
        tags=facts.tags,
        links=facts.links,
        total_lines=total,
        start_line=first,
        end_line=last,
        frontmatter_error=facts.frontmatter_error,
        encoding=None if note.encoding == UTF8 else note.encoding,
        heading_matches=matches,
    )


def _wanted(found: FoundNote, args: ReadNoteIn | None) -> part_reads.Wanted:
    """What `args` (or the address's section) select, as `part_reads` takes it."""
    if found.subpath is not None or args is None:
        block = found.address.block
        if block is not None:
            return part_reads.Wanted("block", block=block)
        return part_reads.Wanted("heading", heading=tuple(found.address.heading or []))
    if args.heading is not None:
        return part_reads.Wanted("heading", heading=tuple(args.heading))
    if args.start_line is not None or args.end_line is not None:
        return part_reads.Wanted("lines", first=args.start_line or 1, last=args.end_line)
    return part_reads.Wanted("frontmatter" if args.part == "frontmatter" else "body")


async def _long_part(ctx: ToolContext, found: FoundNote, args: ReadNoteIn, limit: int, size: int) -> ReadNoteOut:
    """read_note of a part of a note longer than `limit`: read from the file by its lines, in a
    worker thread, never held whole (`part_reads`)."""
    vp = found.vp
    cap = ctx.services.settings.limits.max_indexed_note_chars
    read = partial(part_reads.read_part, wanted=_wanted(found, args), limit=limit, cap=cap)
    part = await offloop.sized(size, ctx.vault.files.scan, vp, read, bounded=True)
    if 2 * len(part.content) > limit:
        size = 2 * len(part.content)
        raise _line_too_long(part.first, size, limit) if part.first == part.last else _too_long(size, limit)
    stat = ctx.vault.files.stat(vp)
    facts = await note_facts(ctx, vp.rel, part.etag, part.start)
    if facts.frontmatter_error is not None:
        await _tell_invalid_frontmatter(ctx, vp.rel, facts.frontmatter_error)
    return ReadNoteOut(
        path=vp.rel,
        title=facts.title,
        obsidian_url=ctx.vault.url(vp.rel),
        etag=part.etag,
        size=stat.size,
        mtime=stat.mtime,
        content=part.content,
        properties=facts.properties,
        tags=facts.tags,
        links=facts.links,
        total_lines=part.total,
        start_line=part.first,
        end_line=part.last,
        frontmatter_error=facts.frontmatter_error,
        heading_matches=_matches(part.matches),
    )


def _selected(text: str, found: FoundNote, args: ReadNoteIn, limit: int) -> tuple[str, int, int, int, list[int] | None]:
    """(content, first line, last line, the note's lines, `_matches`) of what `args` selects (in a worker
    thread for a long note: `service.vault.offloop`); `overflow` when the content alone, sent
    twice, is over `limit` bytes (counted in characters, never more than its UTF-8 bytes). A CR
    alone ends a line, as in Obsidian's editor: lines are those of the note's LF form."""
    note, text = text, line_ends.lf(text)
    total = line_ends.line_count(text)
    first, last, matches = 1, max(total, 1), None
    if found.subpath is not None:
        content, first, last, matches = _section_of(text, found.address)
    elif args.heading is not None:
        span = sections.find_heading(text, args.heading, first=True)
        content, matches = sections.section_text(text, span), _matches(span.matches)
        first, last = span.start + 1, span.start + content.count("\n")
    elif args.start_line is not None or args.end_line is not None:
        first, last, start, end = line_ends.line_range(text, total, args.start_line, args.end_line, "note")
        if 2 * (end - start) > limit:  # before the slice: a 50 MB line is not copied
            raise (
                _line_too_long(first, 2 * (end - start), limit)
                if first == last
                else _too_long(2 * (end - start), limit)
            )
        content = text[start:end] + "\n"
    elif args.part == "frontmatter":
        front = fm.split(text)
        content = front.raw or ""
        first, last = (2, front.body_line - 1) if front.raw is not None else (1, 0)
    elif args.part == "body":
        front = fm.split(text)
        content = text[front.body_start :]
        first = front.body_line + 1
    else:
        content = note
    if 2 * len(content) > limit:
        raise _too_long(2 * len(content), limit)
    return line_ends.as_written(content, note, text, first), first, last, total, matches


async def _tell_invalid_frontmatter(ctx: ToolContext, rel: str, error: str) -> None:
    """An `info` log notification for a client that asked for them (see `service.protocol.client_log`)."""
    if ctx.request is not None:
        await ctx.services.client_logs.send(
            ctx.request, "info", {"event": "invalid_frontmatter", "path": rel, "error": error}
        )


# -- read_notes --------------------------------------------------------------------------------


class ReadNotesIn(ToolInput):
    paths: list[str] = Field(
        min_length=1,
        max_length=200,
        description="Notes to read, in order, as read_note takes them ('Note#Heading' reads that section).",
    )
    cursor: str | None = Field(default=None, description="`next_cursor` of a previous call with the same paths.")


class ReadNotesItem(ToolOutput):
    path: str = Field(description="The note's path as resolved (the address as given when it failed).")
    title: str | None = Field(default=None, description="Note title.")
    obsidian_url: str | None = Field(default=None, description="obsidian://open URL.")
    etag: str | None = Field(default=None, description="Content hash.")
    content: str | None = Field(default=None, description="Note text.")
    encoding: str | None = Field(default=None, description="Set when the file is not UTF-8 (as in read_note).")
    heading_matches: list[int] | None = Field(default=None, description=HEADING_MATCHES)
    error: dict[str, Any] | None = Field(default=None, description="Why this note could not be read.")


class ReadNotesOut(ToolOutput):
    items: list[ReadNotesItem] = Field(description="One entry per path read in this page.")
    next_cursor: str | None = Field(description="Pass back with the same paths to read the rest.")


async def _one_of_many(ctx: ToolContext, raw: str, limit: int) -> tuple[str, str, str, str, list[int] | None]:
    """read_notes' read of one address: (path, content, etag, encoding, `_matches`)."""
    if (base := await base_reads.base_named(ctx, raw)) is not None:  # a base: its YAML, as read_note reads it
        got = await base_reads.read_base(ctx, *base)
        return got["path"], got["content"], got["etag"], got["encoding"] or UTF8, None
    found = await ctx.find_note(raw, "read", section="keep")
    vp = found.vp
    if (whole := ctx.vault.files.stat(vp).size) > limit and found.subpath is None:
        raise _too_long(whole, limit)  # not read: alone it is more than any answer may hold
    if whole > limit:  # its section, read by its lines (`part_reads`)
        cap = ctx.services.settings.limits.max_indexed_note_chars
        read = partial(part_reads.read_part, wanted=_wanted(found, None), limit=limit, cap=cap)
        part = await offloop.sized(whole, ctx.vault.files.scan, vp, read, bounded=True)
        content, etag, encoding, matches = part.content, part.etag, UTF8, _matches(part.matches)
    else:
        note = ctx.vault.files.read(vp)
        content, matches = (note.content, None) if found.subpath is None else _section(note.content, found.address)
        etag, encoding = note.etag, note.encoding
    if 2 * len(content) > limit:
        raise _too_long(2 * len(content), limit)
    return vp.rel, content, etag, encoding, matches


TOO_LONG = (Overflow, ComputeBudgetExceeded)  # a note over an answer, or over `[limits] max_note_bytes`


async def read_notes(ctx: ToolContext, args: ReadNotesIn) -> ReadNotesOut:
    start = decode_cursor(args.cursor, n=len(args.paths))
    limit = ctx.services.settings.governor.max_response_bytes
    budget = int(limit * 0.45)  # content is sent twice
    used = 0
    items: list[ReadNotesItem] = []
    index = start
    for index in range(start, len(args.paths)):
        raw = args.paths[index]
        try:
            rel, content, etag, encoding, matches = await _one_of_many(ctx, raw, limit)
        except (NoteNotFound, PathInvalid, AclDenied, AmbiguousNote, NotANote, ValidationFailed, *TOO_LONG) as exc:
            error: dict[str, Any] = {"code": exc.code, "message": exc.message}
            if isinstance(exc, AmbiguousNote | NoteNotFound | Overflow | ComputeBudgetExceeded) and exc.details:
                error["details"] = exc.details
            items.append(ReadNotesItem(path=raw, error=error))
            continue
        size = len(content.encode("utf-8", errors="surrogateescape"))
        if items and used + size > budget:
            return ReadNotesOut(items=items, next_cursor=encode_cursor(index, n=len(args.paths)))
        used += size
        items.append(
            ReadNotesItem(
                path=rel,
                title=note_title(rel),
                obsidian_url=ctx.vault.url(rel),
                etag=etag,
                content=content,
                encoding=None if encoding == UTF8 else encoding,
                heading_matches=matches,
            )
        )
    return ReadNotesOut(items=items, next_cursor=None)


# -- note_info ---------------------------------------------------------------------------------


class PathIn(ToolInput):
    path: str = Field(description=NOTE_ADDRESS)


class NoteInfoOut(NoteMeta):
    ctime: float = Field(description="Creation (or inode change) time, Unix seconds.")
    word_count: int = Field(description="Words in the body (code blocks excluded).")
    line_count: int = Field(description="Lines in the note.")
    heading_count: int = Field(description="Headings in the note.")
    tags: list[str] = Field(description="Tags without '#' (the first 10,000: as many as the index keeps).")
    outlinks: int = Field(description="Links written in this note.")
    backlinks: int | None = Field(description="Links from other notes to this one (None until indexed).")
    indexed: bool = Field(description="Whether the index knows this note (backlink count comes from it).")
    facts_chars: int | None = Field(
        default=None,
        description="Set for a note longer than the index reads: words, headings, tags and outlinks are of its "
        "first facts_chars characters (size and lines are whole).",
    )


def _info(rel: str, text: str, cap: int) -> tuple[ParsedNote, int, int | None]:
    """The parse of what the index reads of `text` (`caps.kept_text`: a 100 MB note parsed whole
    took 22 s and >1 GB per call), its lines (whole, counted without splitting the note) and
    how many characters were parsed when that is not all of it."""
    kept = kept_text(text, cap)
    view = line_ends.lf(text)  # a CR alone ends a line too
    lines = view.count("\n") + (0 if view.endswith("\n") else 1)
    return parse_note(rel, kept), lines, len(kept) if len(kept) < len(text) else None


async def note_info(ctx: ToolContext, args: PathIn) -> NoteInfoOut:
    vp = (await ctx.find_note(args.path, "read")).vp
    note = await offloop.read(ctx.vault.files.read, vp)
    cap = ctx.services.settings.limits.max_indexed_note_chars
    # an 18 MB note parsed for 5 s on the loop: every call waited; in a worker thread, and at most `cap` parsed
    parsed, lines, parsed_chars = await offloop.sized(len(note.content), _info, vp.rel, note.content, cap)
    row = await ctx.services.db.fetchone(
        "SELECT COUNT(*) FROM notes WHERE vault_id = ?1 AND path = ?2", (ctx.vault.id, vp.rel)
    )
    sources = await ctx.services.db.fetchall(
        "SELECT s.path FROM links l JOIN notes s ON s.id = l.src_id"
        " WHERE l.vault_id = ?1 AND l.target_path = ?2 AND s.path != ?2",
        (ctx.vault.id, vp.rel),
    )
    indexed = bool(row and row[0])
    backlinks = sum(1 for (source,) in sources if ctx.can_read(source))  # a denied linker is not counted
    return NoteInfoOut(
        **meta(ctx, note, parsed.title),
        ctime=note.stat.ctime,
        word_count=parsed.word_count,
        line_count=lines,
        heading_count=len(parsed.headings),
        tags=parsed.tags[:MAX_TAGS],  # a note of 100,000 tags answered `overflow` (T1 s62 #13)
        outlinks=len(parsed.links),
        backlinks=backlinks if indexed else None,
        indexed=indexed,
        facts_chars=parsed_chars,
    )


# -- list_notes / list_folders -----------------------------------------------------------------


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="read_note",
        domain="notes",
        title="Read a note",
        description="Read a note (whole, one heading section by heading path, a line range, frontmatter or "
        "body) with its etag, properties, tags and links. The path may be written as a wikilink: "
        "'Launch plan', '[[Plan#Goals]]', an alias. A '.base' path reads an Obsidian base's YAML (whole or a "
        "line range) with the etag write_note's expected_etag takes. A heading the note repeats reads its first "
        "section, as Obsidian opens a link to it (heading_matches lists each one's line). For several notes use "
        "read_notes; for facts without the text, note_info.",
        input_model=ReadNoteIn,
        output_model=ReadNoteOut,
        handler=read_note,
        reads_index=False,
    ),
    ToolSpec(
        name="read_notes",
        domain="notes",
        title="Read several notes",
        description="Read several notes in one call; what does not fit the response budget comes with "
        "next_cursor. Missing or denied paths, and a note too long for any answer, get a per-note error instead of "
        "failing the call. A '.base' path reads the base's YAML, as read_note does. For one note use read_note.",
        input_model=ReadNotesIn,
        output_model=ReadNotesOut,
        handler=read_notes,
        reads_index=False,
    ),
    ToolSpec(
        name="note_info",
        domain="notes",
        title="Note metadata",
        description="Size, times, etag, word/line/heading counts, tags and link counts of a note, without its "
        "text. To read the text use read_note.",
        input_model=PathIn,
        output_model=NoteInfoOut,
        handler=note_info,
    ),
)
