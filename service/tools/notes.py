"""notes domain: read and write individual notes.

Tools: read_note, create_note (more follow in this module: see TOOLS.md §notes).
Touches: vault files only (through `VaultFiles`); the index is updated by change events.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from service.markdown import frontmatter as fm
from service.markdown.parse import parse_note
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput
from service.tools.registry import ToolSpec
from service.vault.files import NoteFile


class NoteMeta(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL.")
    etag: str = Field(description="Content hash; pass as expected_etag to modify safely.")
    size: int = Field(description="Size in bytes.")
    mtime: float = Field(description="Modification time (Unix seconds).")


class ReadNoteIn(ToolInput):
    path: str = Field(description="Note path, e.g. 'Projects/Plan.md' ('.md' optional).")
    part: Literal["all", "frontmatter", "body"] = Field(
        default="all", description="Return the whole note, only its frontmatter, or only the body."
    )


class ReadNoteOut(NoteMeta):
    content: str = Field(description="The requested text.")
    properties: dict[str, Any] = Field(description="Frontmatter properties.")
    tags: list[str] = Field(description="Tags from frontmatter and body, without '#'.")
    links: list[str] = Field(description="Link targets as written.")
    frontmatter_error: str | None = Field(default=None, description="Set when the YAML is invalid.")

    def to_text(self) -> str:
        return self.content


def _meta(ctx: ToolContext, note: NoteFile, title: str) -> dict[str, Any]:
    return {
        "path": note.path.rel,
        "title": title,
        "obsidian_url": ctx.vault.url(note.path.rel),
        "etag": note.etag,
        "size": note.stat.size,
        "mtime": note.stat.mtime,
    }


async def read_note(ctx: ToolContext, args: ReadNoteIn) -> ReadNoteOut:
    vp = ctx.resolve_note(args.path, "read")
    note = ctx.vault.files.read(vp)
    parsed = parse_note(vp.rel, note.content)
    front = fm.split(note.content)
    if args.part == "frontmatter":
        content = front.raw or ""
    elif args.part == "body":
        content = note.content[front.body_start :]
    else:
        content = note.content
    return ReadNoteOut(
        **_meta(ctx, note, parsed.title),
        content=content,
        properties=parsed.properties,
        tags=parsed.tags,
        links=list(dict.fromkeys(link.target for link in parsed.links if link.target)),
        frontmatter_error=parsed.frontmatter_error,
    )


class CreateNoteIn(ToolInput):
    path: str = Field(description="Where to create the note ('.md' optional).")
    content: str = Field(default="", description="Note text (Markdown).")


class WriteOut(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL.")
    etag: str = Field(description="New content hash.")
    created: bool = Field(description="True when the note did not exist before.")
    size: int = Field(description="Size in bytes after the write.")


async def create_note(ctx: ToolContext, args: CreateNoteIn) -> WriteOut:
    vp = ctx.resolve_note(args.path, "write")
    result = await ctx.vault.files.write(vp, args.content, create_only=True)
    from service.markdown.parse import title_of

    return WriteOut(
        path=vp.rel,
        title=title_of(vp.rel, args.content),
        obsidian_url=ctx.vault.url(vp.rel),
        etag=result.etag,
        created=True,
        size=result.stat.size,
    )


def tools() -> list[ToolSpec]:
    return [
        ToolSpec(
            name="read_note",
            domain="notes",
            title="Read a note",
            description="Read a note's content with its etag, properties, tags and links.",
            input_model=ReadNoteIn,
            output_model=ReadNoteOut,
            handler=read_note,
        ),
        ToolSpec(
            name="create_note",
            domain="notes",
            title="Create a note",
            description="Create a new note; fails with already_exists if something is at the path.",
            input_model=CreateNoteIn,
            output_model=WriteOut,
            handler=create_note,
            scopes=("write:vault",),
            scope_class="write",
            mutating=True,
            idempotent=False,
        ),
    ]
