"""obsidian domain, attachments: list_attachments.

Attachments are the vault's non-Markdown files (kinds: `service.obsidian.attachments`), listed
with their kind, MIME type, size and the notes that link to or embed them (from the index's
resolved links). The answer also says where Obsidian puts a new attachment: the
`attachmentFolderPath` setting of `.obsidian/app.json`, applied to `for_note` when given (the
`./` forms are relative to the note's folder). `embedded_by` keeps the files one note links to or
embeds. Files and linking notes the caller may not read are left out before paging and counting.
Touches: vault folders (listing), index table `links` (read), `.obsidian/app.json` (read).
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from pydantic import Field

from service.markdown.parse import note_title
from service.obsidian import attachments as at
from service.tools.context import ToolContext
from service.tools.models import NoteRef, Paging, ToolInput, ToolOutput, decode_after, page_after
from service.tools.obsidian.config import read_config
from service.tools.spec import ToolSpec
from service.vault.paths import normalize

Kind = Literal["image", "audio", "video", "pdf", "canvas", "base", "text", "other"]


class ListAttachmentsIn(ToolInput, Paging):
    folder: str | None = Field(default=None, description="Only files under this folder (default: whole vault).")
    kind: Kind | None = Field(default=None, description="Only files of this kind.")
    embedded: bool | None = Field(
        default=None, description="true: only files some note links to; false: only unused ones."
    )
    embedded_by: str | None = Field(
        default=None,
        description="Only the files this note links to or embeds (a path or a note name, as a wikilink names it).",
    )
    for_note: str | None = Field(
        default=None,
        description="Not a filter: say where a new attachment of this note goes (the './' settings need it); "
        "default: the `embedded_by` note.",
    )


class Linker(NoteRef):
    embed: bool = Field(description="Whether the note embeds it (![[...]]) rather than only linking.")


class Attachment(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="The file name less its extension, as Obsidian's basename ('photo.png' is 'photo').")
    obsidian_url: str = Field(description="obsidian://open URL of the file.")
    kind: str = Field(description="image, audio, video, pdf, canvas, base, text or other.")
    mime: str = Field(description="MIME type by extension.")
    size: int = Field(description="Size in bytes.")
    mtime: float = Field(description="Last modified (Unix seconds).")
    embedded_by: list[Linker] = Field(description="Notes that link to or embed it (that you may read).")


class AttachmentFolder(ToolOutput):
    setting: str = Field(description="attachmentFolderPath from .obsidian/app.json ('' when unset: vault root).")
    folder: str = Field(description="The folder a new attachment goes to ('' is the vault root).")
    for_note: str | None = Field(description="The note it was computed for.")
    obsidian_url: str = Field(description="obsidian://open URL of that folder.")


class AttachmentsOut(ToolOutput):
    items: list[Attachment] = Field(description="Attachments by path.")
    total: int = Field(description="How many match (all pages).")
    next_cursor: str | None = Field(description="Cursor of the next page.")
    attachment_folder: AttachmentFolder = Field(description="Where Obsidian puts new attachments.")


async def linkers(ctx: ToolContext, targets: list[str] | None = None) -> dict[str, list[Linker]]:
    """Readable notes linking to each non-note file (all of them, or `targets`)."""
    sql = (
        "SELECT l.target_path, n.path, MAX(l.embed) FROM links l JOIN notes n ON n.id = l.src_id "
        "WHERE l.vault_id = ? AND l.target_path IS NOT NULL AND lower(l.target_path) NOT LIKE '%.md'"
    )
    params: list[str] = [ctx.vault.id]
    if targets is not None:
        sql += f" AND l.target_path IN ({','.join('?' * len(targets))})"
        params += targets
    rows = await ctx.services.db.fetchall(sql + " GROUP BY l.target_path, n.path ORDER BY n.path", params)
    out: dict[str, list[Linker]] = {}
    for target, src, embed in rows:
        if ctx.can_read(src):
            ref = Linker(path=src, title=note_title(src), obsidian_url=ctx.vault.url(src), embed=bool(embed))
            out.setdefault(str(target), []).append(ref)
    return out


def _path_of(row: tuple[str, float, int]) -> tuple[str]:
    return (row[0],)


def attachment_folder(ctx: ToolContext, for_note: str | None) -> AttachmentFolder:
    app, _ = read_config(ctx, "app.json")
    setting = at.setting_of(app)
    note = normalize(for_note) if for_note else None
    folder = at.folder_for(setting, note)
    return AttachmentFolder(setting=setting, folder=folder, for_note=note, obsidian_url=ctx.vault.url(folder))


async def list_attachments(ctx: ToolContext, args: ListAttachmentsIn) -> AttachmentsOut:
    where = ctx.folder(args.folder, field="folder") if args.folder else ctx.vault.paths.resolve("", allow_root=True)
    user = (await ctx.find_note(args.embedded_by)).vp.rel if args.embedded_by is not None else None  # "" is no note
    state: dict[str, Any] = {"t": "attachments", "f": args.folder, "k": args.kind, "e": args.embedded, "u": user}
    mark = decode_after(args.cursor, **state)  # keyset: files added or removed before it shift no page
    note = (await ctx.find_note(args.for_note)).vp.rel if args.for_note else user
    folder = attachment_folder(ctx, note)

    def scan() -> list[tuple[str, float, int]]:
        found = []
        for rel, entry in ctx.vault.files.walk(where, readable=ctx.walk_filter()):
            if entry.is_dir() or rel.lower().endswith(".md") or entry.name.endswith(".vgtmp"):
                continue
            if args.kind is not None and at.kind_of(rel) != args.kind:
                continue
            st = entry.stat()
            found.append((rel, st.st_mtime, st.st_size))
        return sorted(found)

    files = await asyncio.to_thread(scan)
    links = await linkers(ctx)
    if args.embedded is not None:
        files = [f for f in files if (f[0] in links) == args.embedded]
    if user is not None:
        files = [f for f in files if any(n.path == user for n in links.get(f[0], ()))]
    window, cursor = page_after(files, _path_of, mark, args.limit, **state)
    items = [
        Attachment(
            path=rel,
            title=note_title(rel),
            obsidian_url=ctx.vault.url(rel),
            kind=at.kind_of(rel),
            mime=at.mime_of(rel),
            size=size,
            mtime=mtime,
            embedded_by=links.get(rel, []),
        )
        for rel, mtime, size in window
    ]
    return AttachmentsOut(items=items, total=len(files), next_cursor=cursor, attachment_folder=folder)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="list_attachments",
        domain="obsidian",
        title="List attachments",
        description="The vault's non-Markdown files (images, PDFs, audio, video, canvases, ...) with kind, size "
        "and the notes that embed them (or only those one note uses: embedded_by), plus where Obsidian puts new "
        "attachments (.obsidian/app.json). "
        "read_attachment reads one.",
        input_model=ListAttachmentsIn,
        output_model=AttachmentsOut,
        handler=list_attachments,
    ),
)
