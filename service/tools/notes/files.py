"""notes domain, files: delete_note, copy_note, create_folder.

delete_note and copy_note take a note or any other file (a base, a canvas, an attachment) named
as a link names it (`base_files.note_or_file`), as Obsidian deletes and copies any of them; a
copy keeps its file's extension (`base_files.file_copy`).

Every change goes through `VaultFiles` (atomic, etag-checked under the per-path lock) and is in
the index before the call returns. Confirmation is declared here (`confirm_when`) and enforced
by the pipeline: permanent deletion, and overwriting a note by a copy without a matching etag.
Touches: vault files; `.obsidian/workspace.json` (`workspace-mobile.json`) when its recent files
list a deleted note (`service.graph.workspace_paths`).
"""

from __future__ import annotations

import asyncio

from pydantic import Field

from service.errors import NoteNotFound, ValidationFailed, VaultgateError
from service.graph.copy_links import copied_text
from service.graph.workspace_paths import forget_deleted, workspace_edits
from service.markdown.parse import note_title
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.tools.models import FILE_ADDRESS, NOTE_ADDRESS, ToolInput, ToolOutput
from service.tools.notes.base_files import file_copy, note_or_file
from service.tools.notes.targets import overwrite_preview, previewed_absent, refuse_etag_of_missing, shown_etag
from service.tools.notes.write_out import (
    ETAG,
    LINKS_NOW_ELSEWHERE,
    MAX_LISTED,
    LinkNowElsewhere,
    WriteOut,
    passed_links,
    taken_links,
    with_taken,
    write_out,
)
from service.tools.prechecks import delete_note_precheck
from service.tools.spec import ToolSpec
from service.vault import journal, notesize, offloop
from service.vault.decoding import encode_note
from service.vault.paths import VaultPath

# -- delete / copy / folders -------------------------------------------------------------------


class DeleteNoteIn(ToolInput):
    path: str = Field(description=NOTE_ADDRESS + FILE_ADDRESS)
    permanent: bool = Field(
        default=False, description="Really delete (needs confirmation); by default the note goes to .trash/."
    )
    expected_etag: str | None = ETAG


class DeleteOut(ToolOutput):
    path: str = Field(description="The deleted note or file.")
    title: str = Field(description="Its title: the file name without its extension.")
    obsidian_url: str = Field(description="obsidian://open URL of the path it had (restore it there to reopen).")
    deleted: bool = Field(description="Always true on success.")
    permanent: bool = Field(description="Whether it was deleted for good.")
    trash_path: str | None = Field(description="Where it went inside the vault's trash (recoverable).")
    settings_updated: list[str] = Field(
        default_factory=list,
        description="Obsidian's workspace files whose recent files no longer list it (as Obsidian does).",
    )
    links_now_elsewhere: list[LinkNowElsewhere] | None = Field(default=None, description=LINKS_NOW_ELSEWHERE)
    links_now_elsewhere_count: int | None = Field(
        default=None, description="How many links `links_now_elsewhere` holds in all."
    )


async def delete_note(ctx: ToolContext, args: DeleteNoteIn) -> DeleteOut:
    missing_ok = args.expected_etag is not None  # a missing note with an etag: the file layer's conflict
    vp = await note_or_file(ctx, args.path, "delete", missing_ok=missing_ok)  # a base, canvas, attachment too
    refuse_etag_of_missing(ctx, vp, args.expected_etag)
    title = note_title(vp.rel)
    # A confirmed permanent delete deletes the version the human was shown (delete_note_confirm),
    # or fails with `conflict`: an edit made between the preview and the delete is never lost.
    shown = shown_etag(ctx, vp, args.expected_etag)
    if args.permanent and journal.recording():  # a plan's step: its undo journal would need the note's bytes
        refuse_long_undoable(ctx, vp)
    passed = await passed_links(ctx, vp.rel)  # from the index as it is before the delete
    trash = await ctx.vault.files.delete(vp, permanent=args.permanent, expected_etag=shown)
    forgotten = await forget_deleted(ctx.vault, [vp.rel])
    return DeleteOut(
        path=vp.rel,
        title=title,
        obsidian_url=ctx.vault.url(vp.rel),
        deleted=True,
        permanent=args.permanent,
        trash_path=trash,
        settings_updated=forgotten,
        links_now_elsewhere=passed[:MAX_LISTED] or None,
        links_now_elsewhere_count=len(passed) or None,
    )


def refuse_long_undoable(ctx: ToolContext, vp: VaultPath) -> None:
    """A permanent delete journaled for its undo (a plan's step) keeps the note's bytes, read whole:
    of a note over `[limits] max_note_bytes` it is refused (`compute_budget_exceeded`) before anything
    is written. A delete to the trash is journaled as a move, nothing read
    (`service.vault.journal.record_long_move`); a direct delete_note is not journaled, nothing read."""
    files = ctx.vault.files
    limit = files.max_note_bytes
    if limit is None or not files.has_note(vp) or (size := files.stat(vp).size) <= limit:
        return
    raise notesize.too_large(
        vp.rel,
        size,
        limit,
        why="a plan keeps the bytes of a note it deletes for good, for its undo",
        instead="A delete to the trash (permanent false) works in a plan and is undone without reading the note; "
        "so does delete_note with permanent true called directly, outside a plan (not undoable).",
    )


async def plan_delete_check(ctx: ToolContext, args: DeleteNoteIn) -> None:
    """A plan's check (validate_plan, a dry run) of a delete_note step: what the run refuses before
    anything is written (`refuse_long_undoable`). The plan's host sets it as the step's static check
    (`service.tools.sessions.plan_host`): a direct call is not journaled, nothing refused."""
    if not args.permanent:
        return
    try:
        vp = await note_or_file(ctx, args.path, "delete")
    except VaultgateError:
        return  # not found, not allowed: the plan's other checks (or the run) tell it
    refuse_long_undoable(ctx, vp)


async def delete_note_confirm(ctx: ToolContext, args: DeleteNoteIn) -> ChangePreview | None:
    if not args.permanent:
        return None
    vp = await note_or_file(ctx, args.path, "delete", missing_ok=args.expected_etag is not None)
    recent = [e.path for e in workspace_edits(ctx.vault, {}, [vp.rel])]  # its recent files forget it
    return ChangePreview.of(
        f"permanently delete {vp.rel}{_version(ctx, vp)} (not recoverable from .trash)", [vp.rel, *recent]
    )


def _version(ctx: ToolContext, vp: VaultPath) -> str:
    """The version of the note a human approves deleting: its size and etag in the preview, so a
    token minted for it is refused once the note was edited (the preview changed: asked again),
    and the etag kept for the delete itself (`delete_note`), which fails with `conflict` when the
    note changes after this check."""
    files = ctx.vault.files
    etag = files.current_etag(vp)
    if etag is None:  # gone (or not a file): the delete answers for it
        return ""
    ctx.notes.setdefault("previewed", {})[vp.rel] = etag
    try:
        size = files.stat(vp).size
    except NoteNotFound:
        return ""
    return f" ({size} bytes, etag {etag})"


class CopyNoteIn(ToolInput):
    path: str = Field(description="Note or file to copy. " + NOTE_ADDRESS + FILE_ADDRESS)
    new_path: str = Field(
        description="Where the copy goes ('.md' optional), taken as written; a folder ending in '/' ('Copies/'): "
        "into it, with the note's name."
    )
    overwrite: bool = Field(
        default=False,
        description="Replace an existing note at new_path (needs confirmation unless expected_etag matches it).",
    )
    expected_etag: str | None = Field(
        default=None,
        description="Etag of the note at new_path you read; if it changed (or is gone) the call fails with conflict.",
    )


async def _copy_paths(ctx: ToolContext, args: CopyNoteIn) -> tuple[VaultPath, VaultPath]:
    src = await note_or_file(ctx, args.path, "read")  # a base, canvas, attachment too: its copy is one
    into = args.new_path.strip().endswith("/") and args.new_path.strip().strip("/")  # 'Copies/': into it, same name
    where = f"{args.new_path.strip()}{note_title(src.rel)}" if into else args.new_path
    dst = ctx.resolve_note(where, "write") if src.rel.lower().endswith(".md") else file_copy(ctx, src.rel, where)
    if src.rel == dst.rel:
        raise ValidationFailed("new_path is the same note", details={"field": "new_path"})
    return src, dst


async def _copied_bytes(ctx: ToolContext, src: VaultPath, dst: VaultPath) -> bytes | None:
    """A note's bytes as its copy into another folder holds them, its links naming the files the
    original's name (`graph.copy_links`), in the original's encoding (a cp1252 or UTF-16 note's
    copy stays so, byte-order mark and line ends too: `decoding.encode_note`); None: the bytes are
    copied (no link changes, not a note)."""
    if not src.rel.lower().endswith(".md") or not dst.rel.lower().endswith(".md"):
        return None
    note = await offloop.read(ctx.vault.files.read, src)
    text = await asyncio.to_thread(copied_text, ctx.vault, note.content, src.rel, dst.rel)
    return None if text is None else await offloop.sized(len(text), encode_note, text, note.encoding)


async def copy_note(ctx: ToolContext, args: CopyNoteIn) -> WriteOut:
    src, dst = await _copy_paths(ctx, args)
    shown = shown_etag(ctx, dst, args.expected_etag)  # a confirmed overwrite replaces the version shown
    overwrite = args.overwrite and not previewed_absent(ctx, dst, args.expected_etag)  # shown no note: create
    taken = await taken_links(ctx, [dst.rel])
    data = await _copied_bytes(ctx, src, dst)
    result = await ctx.vault.files.copy(src, dst, overwrite=overwrite, expected_etag=shown, data=data)
    return with_taken(write_out(ctx, dst, result), taken)


async def copy_note_confirm(ctx: ToolContext, args: CopyNoteIn) -> ChangePreview | None:
    if not args.overwrite:
        return None
    src, dst = await _copy_paths(ctx, args)
    why = await overwrite_preview(ctx, dst, ctx.vault.files.stat(src).size, args.expected_etag)
    return None if why is None else ChangePreview.of(why, [dst.rel])


class CreateFolderIn(ToolInput):
    path: str = Field(description="Folder to create (parents are created too).")


class FolderOut(ToolOutput):
    path: str = Field(description="The folder.")
    obsidian_url: str = Field(description="obsidian://open URL of the folder (Obsidian reveals it).")
    created: bool = Field(description="False when it already existed.")


async def create_folder(ctx: ToolContext, args: CreateFolderIn) -> FolderOut:
    vp = ctx.resolve(args.path, "write")
    created = await ctx.vault.files.make_folder(vp)
    return FolderOut(path=vp.rel, obsidian_url=ctx.vault.url(vp.rel), created=created)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="delete_note",
        domain="notes",
        title="Delete a note",
        description="Move a note or any other file (a base, a canvas, an attachment) to the vault's .trash/ "
        "(recoverable); permanent=true deletes it for good and needs confirmation. Links to it are left as written "
        "(links_now_elsewhere: those that now name another note of its name).",
        input_model=DeleteNoteIn,
        output_model=DeleteOut,
        handler=delete_note,
        scopes=("delete:vault",),
        scope_class="delete",
        mutating=True,
        confirm="conditional",
        confirm_when=delete_note_confirm,
        precheck=delete_note_precheck,
        idempotent=False,
    ),
    ToolSpec(
        name="copy_note",
        domain="notes",
        title="Copy a note",
        description="Copy a note or any other file (a base, a canvas, an attachment) to a new path (a note copied "
        "into another folder gets the links that would name another file from there rewritten, as a move does; "
        "it keeps its encoding); overwrite=true replaces a file there (needs confirmation unless expected_etag "
        "matches it).",
        input_model=CopyNoteIn,
        output_model=WriteOut,
        handler=copy_note,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        confirm="conditional",
        confirm_when=copy_note_confirm,
        idempotent=False,
    ),
    ToolSpec(
        name="create_folder",
        domain="notes",
        title="Create a folder",
        description="Create a folder and its parents.",
        input_model=CreateFolderIn,
        output_model=FolderOut,
        handler=create_folder,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
    ),
)
