"""notes domain, reading: read_note, read_notes, note_info, list_notes, list_folders.

Touches: vault files (read only, through `VaultFiles`); index tables `notes`, `links` for link
counts in note_info. Writing tools live in `write.py`, `files.py` and `bulk.py`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field, model_validator
from wcmatch import glob as wglob

from service.errors import AclDenied, AmbiguousNote, NotANote, NoteNotFound, PathInvalid, ValidationFailed
from service.graph.address import Address
from service.markdown import frontmatter as fm
from service.markdown import sections
from service.markdown.parse import note_title, parse_note
from service.tools.context import ToolContext
from service.tools.models import NOTE_ADDRESS, ToolInput, ToolOutput, decode_cursor, encode_cursor, page_of
from service.tools.notes.note_facts import note_facts
from service.tools.spec import ToolSpec
from service.vault.files import NoteFile

GLOB_FLAGS = wglob.GLOBSTAR | wglob.BRACE | wglob.IGNORECASE | wglob.DOTMATCH


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
    heading: list[str] | None = Field(
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

    def to_text(self) -> str:
        return self.content


def _section(text: str, address: Address) -> tuple[str, int, int]:
    """(content, first, last line) of an address's section: '#^block' or a heading path '#A#B'."""
    if address.block is not None:
        span = sections.find_block(text, address.block)
        lines = text.split("\n")
        return "\n".join(lines[span.start : span.end]) + "\n", span.start + 1, span.end
    span = sections.find_heading(text, address.heading or [])
    content = sections.section_text(text, span)
    return content, span.start + 1, span.start + content.count("\n")


async def read_note(ctx: ToolContext, args: ReadNoteIn) -> ReadNoteOut:
    found = await ctx.find_note(args.path, "read", section="keep")
    selected = args.heading is not None or args.start_line or args.end_line or args.part != "all"
    if found.subpath is not None and selected:
        raise ValidationFailed(
            "the path already names a section ('#…'): choose one of it, heading, a line range, or part",
            details={"field": "path", "subpath": found.subpath},
        )
    vp = found.vp
    note = ctx.vault.files.read(vp)
    text = note.content
    facts = await note_facts(ctx, vp.rel, note.etag, text)
    if facts.frontmatter_error is not None:
        await _tell_invalid_frontmatter(ctx, vp.rel, facts.frontmatter_error)
    total = text.count("\n") + (0 if text.endswith("\n") else 1)  # lines, without splitting the note
    first, last = 1, max(total, 1)
    if found.subpath is not None:
        content, first, last = _section(text, found.address)
    elif args.heading is not None:
        span = sections.find_heading(text, args.heading)
        content = sections.section_text(text, span)
        first, last = span.start + 1, span.start + content.count("\n")
    elif args.start_line is not None or args.end_line is not None:
        lines = text.split("\n")
        first = args.start_line or 1
        last = min(args.end_line or total, total)
        if first > max(total, 1):
            raise ValidationFailed(
                f"start_line {first} is past the end of the note ({total} lines)",
                details={"field": "start_line", "total_lines": total},
            )
        content = "\n".join(lines[first - 1 : last]) + "\n"
    elif args.part == "frontmatter":
        front = fm.split(text)
        content = front.raw or ""
        first, last = (2, front.body_line - 1) if front.raw is not None else (1, 0)
    elif args.part == "body":
        front = fm.split(text)
        content = text[front.body_start :]
        first = front.body_line + 1
    else:
        content = text
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
    )


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
    error: dict[str, Any] | None = Field(default=None, description="Why this note could not be read.")


class ReadNotesOut(ToolOutput):
    items: list[ReadNotesItem] = Field(description="One entry per path read in this page.")
    next_cursor: str | None = Field(description="Pass back with the same paths to read the rest.")


async def read_notes(ctx: ToolContext, args: ReadNotesIn) -> ReadNotesOut:
    start = decode_cursor(args.cursor, n=len(args.paths))
    budget = int(ctx.services.settings.governor.max_response_bytes * 0.45)  # content is sent twice
    used = 0
    items: list[ReadNotesItem] = []
    index = start
    for index in range(start, len(args.paths)):
        raw = args.paths[index]
        try:
            found = await ctx.find_note(raw, "read", section="keep")
            vp = found.vp
            note = ctx.vault.files.read(vp)
            content = note.content if found.subpath is None else _section(note.content, found.address)[0]
        except (NoteNotFound, PathInvalid, AclDenied, AmbiguousNote, NotANote, ValidationFailed) as exc:
            error: dict[str, Any] = {"code": exc.code, "message": exc.message}
            if isinstance(exc, AmbiguousNote | NoteNotFound) and exc.details:
                error["details"] = exc.details
            items.append(ReadNotesItem(path=raw, error=error))
            continue
        size = len(content.encode("utf-8", errors="surrogateescape"))
        if items and used + size > budget:
            return ReadNotesOut(items=items, next_cursor=encode_cursor(index, n=len(args.paths)))
        used += size
        items.append(
            ReadNotesItem(
                path=vp.rel,
                title=note_title(vp.rel),
                obsidian_url=ctx.vault.url(vp.rel),
                etag=note.etag,
                content=content,
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
    tags: list[str] = Field(description="Tags without '#'.")
    outlinks: int = Field(description="Links written in this note.")
    backlinks: int | None = Field(description="Links from other notes to this one (None until indexed).")
    indexed: bool = Field(description="Whether the index knows this note (backlink count comes from it).")


async def note_info(ctx: ToolContext, args: PathIn) -> NoteInfoOut:
    vp = (await ctx.find_note(args.path, "read")).vp
    note = ctx.vault.files.read(vp)
    parsed = parse_note(vp.rel, note.content)
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
        line_count=len(note.content.split("\n")) - (1 if note.content.endswith("\n") else 0),
        heading_count=len(parsed.headings),
        tags=parsed.tags,
        outlinks=len(parsed.links),
        backlinks=backlinks if indexed else None,
        indexed=indexed,
    )


# -- list_notes / list_folders -----------------------------------------------------------------


class ListNotesIn(ToolInput):
    folder: str = Field(default="", description="Folder to list ('' = vault root).")
    glob: str | None = Field(default=None, description="Glob on the vault path, e.g. 'Projects/**/*.md'.")
    recursive: bool = Field(default=True, description="Include sub-folders.")
    sort: Literal["path", "mtime", "size"] = Field(default="path", description="Sort key.")
    order: Literal["asc", "desc"] = Field(default="asc", description="Sort order.")
    include_attachments: bool = Field(default=False, description="Also list non-Markdown files.")
    limit: int = Field(default=100, ge=1, le=1000, description="Page size.")
    cursor: str | None = Field(default=None, description="`next_cursor` from the previous page.")


class FileItem(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title: the file name without '.md'.")
    obsidian_url: str = Field(description="obsidian://open URL.")
    size: int = Field(description="Size in bytes.")
    mtime: float = Field(description="Modification time (Unix seconds).")


class ListNotesOut(ToolOutput):
    items: list[FileItem] = Field(description="This page of files.")
    next_cursor: str | None = Field(description="Cursor for the next page, None at the end.")
    total: int = Field(description="Files matching, over all pages.")


async def list_notes(ctx: ToolContext, args: ListNotesIn) -> ListNotesOut:
    folder = ctx.resolve(args.folder, "read", allow_root=True)
    if not folder.abs.is_dir():
        raise NoteNotFound(f"no folder at {folder.rel!r}", details={"path": folder.rel})

    def files() -> list[tuple[str, int, float]]:
        """(path, size, mtime) of every matching file: plain tuples, so that only the page gets
        an item and a URL (the vault root of 10,000 notes took ~400 ms of CPU otherwise)."""
        out: list[tuple[str, int, float]] = []
        # `readable` also decides on a symlink's target: a link never lists a note its rules hide.
        for rel, entry in ctx.vault.files.walk(folder, recursive=args.recursive, readable=ctx.can_read):
            if entry.is_dir():
                continue
            if not args.include_attachments and not rel.lower().endswith(".md"):
                continue
            if args.glob and not wglob.globmatch(rel, args.glob, flags=GLOB_FLAGS):
                continue
            st = entry.stat()
            out.append((rel, st.st_size, st.st_mtime))
        out.sort(key=_SORT_KEYS[args.sort], reverse=args.order == "desc")
        return out

    # On the event loop: in a worker thread this GIL-bound walk only traded CPU for waits.
    found = files()
    state = {"q": f"{folder.rel}|{args.glob}|{args.recursive}|{args.sort}|{args.order}"}
    offset = decode_cursor(args.cursor, **state)
    window, nxt = page_of(found, offset, args.limit, **state)
    return ListNotesOut(items=[_file_item(ctx, *row) for row in window], next_cursor=nxt, total=len(found))


def _path_key(row: tuple[str, int, float]) -> str:
    return row[0].lower()


def _mtime_key(row: tuple[str, int, float]) -> float:
    return row[2]


def _size_key(row: tuple[str, int, float]) -> int:
    return row[1]


_SORT_KEYS: dict[str, Callable[[tuple[str, int, float]], Any]] = {
    "path": _path_key,
    "mtime": _mtime_key,
    "size": _size_key,
}


def _file_item(ctx: ToolContext, rel: str, size: int, mtime: float) -> FileItem:
    name = rel.rsplit("/", 1)[-1]
    title = name[:-3] if name.lower().endswith(".md") else name
    return FileItem(path=rel, title=title, obsidian_url=ctx.vault.url(rel), size=size, mtime=mtime)


class ListFoldersIn(ToolInput):
    folder: str = Field(default="", description="Parent folder ('' = vault root).")
    recursive: bool = Field(default=True, description="Include nested folders.")
    limit: int = Field(default=200, ge=1, le=2000, description="Page size.")
    cursor: str | None = Field(default=None, description="`next_cursor` from the previous page.")


class FolderItem(ToolOutput):
    path: str = Field(description="Folder path.")
    obsidian_url: str = Field(description="obsidian://open URL of the folder (Obsidian reveals it).")
    notes: int = Field(description="Markdown notes directly inside.")


class ListFoldersOut(ToolOutput):
    items: list[FolderItem] = Field(description="This page of folders.")
    next_cursor: str | None = Field(description="Cursor for the next page, None at the end.")


async def list_folders(ctx: ToolContext, args: ListFoldersIn) -> ListFoldersOut:
    folder = ctx.resolve(args.folder, "read", allow_root=True)
    if not folder.abs.is_dir():
        raise NoteNotFound(f"no folder at {folder.rel!r}", details={"path": folder.rel})
    # One walk (a level deeper than listed when not recursive) finds the folders and counts the
    # notes directly inside each; both decide on a symlink's target as well as on its own path.
    base = len(folder.rel.split("/")) if folder.rel else 0
    folders: list[str] = []
    counts: Counter[str] = Counter()
    walked = ctx.vault.files.walk(folder, max_depth=None if args.recursive else 2, readable=ctx.can_read)
    for rel, entry in walked:
        if entry.is_dir():
            if args.recursive or rel.count("/") + 1 - base == 1:
                folders.append(rel)
        elif rel.lower().endswith(".md"):
            counts[rel.rpartition("/")[0]] += 1
    found = [FolderItem(path=rel, obsidian_url=ctx.vault.url(rel), notes=counts[rel]) for rel in folders]
    found.sort(key=lambda f: f.path.lower())
    state = {"q": f"{folder.rel}|{args.recursive}"}
    window, nxt = page_of(found, decode_cursor(args.cursor, **state), args.limit, **state)
    return ListFoldersOut(items=window, next_cursor=nxt)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="read_note",
        domain="notes",
        title="Read a note",
        description="Read a note (whole, one heading section by heading path, a line range, frontmatter or "
        "body) with its etag, properties, tags and links. The path may be written as a wikilink: "
        "'Launch plan', '[[Plan#Goals]]', an alias. For several notes use read_notes; for facts "
        "without the text, note_info.",
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
        "next_cursor. Missing or denied paths get a per-note error instead of failing the call. "
        "For one note use read_note.",
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
    ToolSpec(
        name="list_notes",
        domain="notes",
        title="List notes",
        description="List notes in a folder (recursive by default), filtered by glob, sorted by path, mtime "
        "or size. To find notes by what they contain, use a search tool instead.",
        input_model=ListNotesIn,
        output_model=ListNotesOut,
        handler=list_notes,
        reads_index=False,
    ),
    ToolSpec(
        name="list_folders",
        domain="notes",
        title="List folders",
        description="List folders below a folder with how many notes each holds.",
        input_model=ListFoldersIn,
        output_model=ListFoldersOut,
        handler=list_folders,
        reads_index=False,
    ),
)
