"""notes domain, writing: create_note, write_note, append_note, prepend_note, patch_note
(delete_note, copy_note, create_folder: `files.py`; bulk_create_notes: `bulk.py`). Every write
goes through `VaultFiles` (atomic, etag-checked under the per-path lock) and is acknowledged once
the file is durable; its index update is queued, and the caller's next call that reads the index
waits for it (`service.dispatch.own_writes`). Optional `expected_etag` turns a concurrent edit
into `conflict` with nothing written. Confirmation is declared here (`confirm_when`) and enforced
by the pipeline: overwriting non-empty content without a matching etag. create_note and
write_note also write Obsidian Bases `.base` files, checked first (`base_files`). A note created
where another has its name lists the links it takes over (`write_out`). Touches: vault files only.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from service.errors import AlreadyExists, Conflict, NoteNotFound, ValidationFailed
from service.graph.address import Address
from service.markdown import frontmatter as fm
from service.markdown import sections
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.tools.models import NOTE_ADDRESS, HeadingPath, ToolInput
from service.tools.notes.base_files import base_static_check, checked_base_write
from service.tools.notes.note_texts import (
    inserted_outside_open_block,
    not_into_open_block,
    refuse_frontmatter_bomb,
    yaml_block,
)
from service.tools.notes.targets import (
    create_target,
    existing_or_new,
    overwrite_preview,
    previewed_absent,
    refuse_etag_of_missing,
    shown_etag,
)
from service.tools.notes.write_out import ETAG, taken_links, with_taken
from service.tools.notes.write_out import WriteOut as WriteOut  # the answer's home before; tasks import it here
from service.tools.notes.write_out import write_out as write_out
from service.tools.spec import ToolSpec
from service.vault.casing import CaseTwin
from service.vault.files import WriteResult
from service.vault.paths import VaultPath

# -- create / write ----------------------------------------------------------------------------

IfExists = Literal["error", "overwrite", "unique"]
MAX_UNIQUE_SUFFIX = 1000


class CreateNoteIn(ToolInput):
    path: str = Field(
        description="Where to create the note ('.md' optional; folders are created); a '.base' path makes an "
        "Obsidian base."
    )
    content: str = Field(default="", description="Note text (Markdown); for a '.base' path, the base's YAML.")
    frontmatter: dict[str, Any] | None = Field(
        default=None, description="Properties written as a YAML frontmatter block before the content."
    )
    if_exists: IfExists = Field(
        default="error",
        description="When a note is already there: error (already_exists), overwrite it (needs confirmation "
        "unless expected_etag matches, as write_note), or unique: create 'Name 1.md', 'Name 2.md', … "
        "as Obsidian does.",
    )
    expected_etag: str | None = Field(
        default=None, description="With if_exists='overwrite': the etag you read; a changed note fails with conflict."
    )

    @model_validator(mode="after")
    def _etag_needs_overwrite(self) -> CreateNoteIn:
        if self.expected_etag is not None and self.if_exists != "overwrite":
            raise ValueError("expected_etag applies only with if_exists='overwrite'")
        return self


def _create_text(args: CreateNoteIn) -> str:
    text = args.content
    if args.frontmatter:
        if fm.split(text).raw is not None:
            raise ValidationFailed(
                "content already has a frontmatter block; pass properties in one place",
                details={"field": "frontmatter"},
            )
        text = yaml_block(args.frontmatter) + text
    refuse_frontmatter_bomb(text, "content")
    return text


async def replace(ctx: ToolContext, vp: VaultPath, content: str, expected_etag: str | None) -> WriteResult:
    """Replace the note at `vp` (created when missing). A confirmed call replaces the version the
    human was shown (`shown_etag`), or fails with `conflict`; one whose preview found no note
    only creates it (`previewed_absent`: a note made since is `already_exists`). Without `expected_etag` and
    unconfirmed, the confirm layer let it through because nothing was there to lose: it writes
    only over what is still nothing (a missing or empty note, under the file's lock), and a note
    filled meanwhile (a concurrent create, say) is a `conflict`, never replaced unasked."""
    files = ctx.vault.files
    if expected_etag is not None or ctx.notes.get("confirmed") is not None:
        shown, absent = shown_etag(ctx, vp, expected_etag), previewed_absent(ctx, vp, expected_etag)
        return await files.write(vp, content, expected_etag=shown, create_only=absent)
    now = files.read(vp) if files.has_note(vp) else None
    try:
        if now is None or not now.content.strip():
            return await files.write(vp, content, expected_etag=now.etag if now else None, create_only=now is None)
    except CaseTwin:
        raise
    except (AlreadyExists, Conflict, NoteNotFound):
        pass
    raise Conflict(
        f"{vp.rel!r} was written by someone else while this call ran; replacing it needs its etag or confirmation",
        details={"path": vp.rel, "current_etag": files.current_etag(vp)},
        hint="Read it and pass its etag as expected_etag, or call again to be asked for confirmation.",
    )


def _numbered(rel: str, n: int) -> str:
    """'Folder/Name.md' -> 'Folder/Name n.md', 'Books.base' -> 'Books n.base' (Obsidian's naming for a taken name)."""
    stem, _, ext = rel.rpartition(".")
    return f"{stem} {n}.{ext}"


async def create_note(ctx: ToolContext, args: CreateNoteIn) -> WriteOut:
    await checked_base_write(ctx, args.path, args.content, mode="create", frontmatter=args.frontmatter)
    vp = await create_target(ctx, args.path)
    text = _create_text(args)
    files = ctx.vault.files
    if args.if_exists == "overwrite":
        refuse_etag_of_missing(ctx, vp, args.expected_etag)
        taken = await taken_links(ctx, [vp.rel])
        return with_taken(write_out(ctx, vp, await replace(ctx, vp, text, args.expected_etag)), taken)
    if args.if_exists == "error":
        taken = await taken_links(ctx, [vp.rel])
        return with_taken(write_out(ctx, vp, await files.write(vp, text, create_only=True)), taken)
    for n in range(MAX_UNIQUE_SUFFIX + 1):
        candidate = vp if n == 0 else ctx.resolve(_numbered(vp.rel, n), "write")
        if files.has_note(candidate) or candidate.abs.is_dir():
            continue
        taken = await taken_links(ctx, [candidate.rel])
        try:
            result = await files.write(candidate, text, create_only=True)
        except CaseTwin as exc:  # a folder above twins one there: no number fixes that
            if str(exc.details.get("path", "")).count("/") < candidate.rel.count("/"):
                raise
            continue
        except AlreadyExists:
            continue  # taken concurrently: try the next number
        return with_taken(write_out(ctx, candidate, result), taken)
    raise AlreadyExists(f"{vp.rel!r} and {MAX_UNIQUE_SUFFIX} numbered variants already exist", details={"path": vp.rel})


async def create_note_confirm(ctx: ToolContext, args: CreateNoteIn) -> ChangePreview | None:
    if args.if_exists != "overwrite":
        return None
    await checked_base_write(ctx, args.path, args.content, mode="create", frontmatter=args.frontmatter)
    vp = await create_target(ctx, args.path)
    why = await overwrite_preview(ctx, vp, len(_create_text(args).encode()), args.expected_etag)
    return None if why is None else ChangePreview.of(why, [vp.rel])


NEW_OR_EXISTING = NOTE_ADDRESS + " Where no note fits, one is created at exactly this path."


class WriteNoteIn(ToolInput):
    path: str = Field(description=NEW_OR_EXISTING + " A '.base' path writes an Obsidian base.")
    content: str = Field(description="Note text (Markdown); for a '.base' path, the base's YAML.")
    mode: Literal["create", "overwrite", "append"] = Field(
        default="create",
        description="create: fail if it exists; overwrite: replace (creates if missing); append: add at the end.",
    )
    expected_etag: str | None = ETAG


async def _write_target(ctx: ToolContext, args: WriteNoteIn) -> VaultPath:
    await checked_base_write(ctx, args.path, args.content, mode=args.mode)  # a .base: before any confirmation
    if args.mode == "create":
        return await create_target(ctx, args.path)
    return await existing_or_new(ctx, args.path)


async def write_note(ctx: ToolContext, args: WriteNoteIn) -> WriteOut:
    if args.mode != "append":
        refuse_frontmatter_bomb(args.content, "content")
    vp = await _write_target(ctx, args)
    refuse_etag_of_missing(ctx, vp, args.expected_etag)
    files = ctx.vault.files
    if args.mode == "append":
        if not files.has_note(vp):
            # a note gone since the check above: conflict (under the lock), never a new note
            result = await files.write(vp, args.content, create_only=True, expected_etag=args.expected_etag)
            return write_out(ctx, vp, result)
        result = await files.modify(
            vp, sections.keeping_crlf(lambda old: added(old, args.content)), expected_etag=args.expected_etag
        )
        return write_out(ctx, vp, result)
    taken = await taken_links(ctx, [vp.rel])
    if args.mode == "overwrite":
        return with_taken(write_out(ctx, vp, await replace(ctx, vp, args.content, args.expected_etag)), taken)
    result = await files.write(vp, args.content, expected_etag=args.expected_etag, create_only=True)
    return with_taken(write_out(ctx, vp, result), taken)


async def write_note_confirm(ctx: ToolContext, args: WriteNoteIn) -> ChangePreview | None:
    if args.mode != "overwrite":
        return None
    vp = await _write_target(ctx, args)
    why = await overwrite_preview(ctx, vp, len(args.content.encode()), args.expected_etag)
    return None if why is None else ChangePreview.of(why, [vp.rel])


# -- append / prepend --------------------------------------------------------------------------


def added(old: str, content: str, *, at_start: bool = False) -> str:
    """append_note's (write_note's in append mode) or prepend_note's edit of a note's text."""
    if at_start:
        return sections.insert_after_frontmatter(old, content if content.endswith("\n") else content + "\n")
    base = old if not old or old.endswith("\n") else old + "\n"
    not_into_open_block(base, content)  # a block the note leaves open would take the text
    return base + content


class AppendIn(ToolInput):
    path: str = Field(description=NEW_OR_EXISTING)
    content: str = Field(description="Text to add.")
    create_if_missing: bool = Field(default=False, description="Create the note when it does not exist.")
    expected_etag: str | None = ETAG


async def _add(ctx: ToolContext, args: AppendIn, at_start: bool) -> WriteOut:
    # A missing note with an expected_etag is note_not_found (one gone in between: conflict, under the lock).
    missing_ok = args.create_if_missing or args.expected_etag is not None
    vp = (await ctx.find_note(args.path, "write", section="reject", missing_ok=missing_ok)).vp
    refuse_etag_of_missing(ctx, vp, args.expected_etag)
    files = ctx.vault.files
    if args.create_if_missing and not files.has_note(vp):
        try:  # an expected_etag for a missing note fails with conflict: nothing is created
            result = await files.write(vp, args.content, create_only=True, expected_etag=args.expected_etag)
            return write_out(ctx, vp, result)
        except CaseTwin:
            raise
        except AlreadyExists:
            pass  # created concurrently: fall through to a normal append

    change = sections.keeping_crlf(lambda old: added(old, args.content, at_start=at_start))
    result = await files.modify(vp, change, expected_etag=args.expected_etag)
    return write_out(ctx, vp, result)


async def append_note(ctx: ToolContext, args: AppendIn) -> WriteOut:
    return await _add(ctx, args, at_start=False)


async def prepend_note(ctx: ToolContext, args: AppendIn) -> WriteOut:
    return await _add(ctx, args, at_start=True)


# -- patch -------------------------------------------------------------------------------------


class PatchNoteIn(ToolInput):
    path: str = Field(
        description=NOTE_ADDRESS + " 'Note#Heading' or 'Note#^block' is the target when no other is given."
    )
    content: str = Field(description="Text to insert, or the replacement.")
    heading: HeadingPath | None = Field(
        default=None, description="Target section: heading texts from the outermost down, e.g. ['Plan', 'Goals']."
    )
    block: str | None = Field(default=None, description="Target block id, e.g. '^goal-1' (the '^' is optional).")
    anchor: str | None = Field(default=None, description="Target: a text that occurs exactly once in the note body.")
    position: sections.Position = Field(
        default="append",
        description="before/after the target, prepend/append inside it, or replace its content "
        "(a section keeps its heading line; a block keeps its ^id; by an anchor: inside its line).",
    )
    expected_etag: str | None = ETAG

    @model_validator(mode="after")
    def _one_target(self) -> PatchNoteIn:
        if sum(x is not None for x in (self.heading, self.block, self.anchor)) > 1:
            raise ValueError("give exactly one target: heading, block or anchor")
        return self


def _no_target() -> ValidationFailed:
    return ValidationFailed(
        "give exactly one target: heading, block, anchor, or a '#Heading'/'#^block' in the path",
        details={"field": "heading", "reason": "no_target"},
    )


async def patch_target_check(ctx: ToolContext, args: PatchNoteIn) -> None:
    """The refusal patch_note's arguments alone decide, also in validate_plan and a dry-run
    vault's preview (`ToolSpec.static_check`): no target at all, neither heading, block nor
    anchor and no '#' in the path that could name a section."""
    if "#" not in args.path and all(x is None for x in (args.heading, args.block, args.anchor)):
        raise _no_target()


def with_section(args: PatchNoteIn, subpath: str | None, address: Address) -> PatchNoteIn:
    """The arguments with the path's '#…' section (`address`'s) as the target; exactly one in all."""
    given = sum(x is not None for x in (args.heading, args.block, args.anchor))
    if subpath is None:
        if given == 0:
            raise _no_target()
        return args
    if given:
        raise ValidationFailed(
            "the path already names a section ('#…'): give it or heading/block/anchor, not both",
            details={"field": "path", "subpath": subpath},
        )
    if address.block is not None:
        return args.model_copy(update={"block": address.block})
    return args.model_copy(update={"heading": address.heading or []})


def patched(args: PatchNoteIn, text: str) -> str:
    """patch_note's edit of a note's text, its target given (`with_section`); a plan's check too."""
    content = args.content
    if args.anchor is not None:
        offset = sections.find_anchor(text, args.anchor)
        return sections.patch_anchor(text, offset, args.anchor, args.position, content)
    if not content.endswith("\n"):
        content += "\n"
    if args.heading is not None:
        span = sections.find_heading(text, args.heading)
        return inserted_outside_open_block(text, sections.patch_lines(text, span, args.position, content))
    assert args.block is not None
    block_id = args.block.lstrip("^")
    span = sections.find_block(text, block_id)
    patched_text = sections.patch_lines(text, span, args.position, content, keep_block_id=block_id)
    return inserted_outside_open_block(text, patched_text)


async def patch_note(ctx: ToolContext, args: PatchNoteIn) -> WriteOut:
    found = await ctx.find_note(args.path, "write", section="keep", missing_ok=args.expected_etag is not None)
    args = with_section(args, found.subpath, found.address)
    vp = found.vp
    refuse_etag_of_missing(ctx, vp, args.expected_etag)
    files = ctx.vault.files
    result = await files.modify(
        vp, sections.keeping_crlf(lambda old: patched(args, old)), expected_etag=args.expected_etag
    )
    return write_out(ctx, vp, result)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="create_note",
        domain="notes",
        title="Create a note",
        description="Create a new note, optionally with frontmatter properties. When one exists: "
        "already_exists (if_exists='error', the default), a numbered 'Name 1.md' "
        "(if_exists='unique'), or overwrite it (if_exists='overwrite'; needs confirmation unless "
        "expected_etag matches). To replace or extend an existing note use write_note. A '.base' path "
        "creates an Obsidian base from its YAML, checked as query_base reads it (bases_syntax_error).",
        input_model=CreateNoteIn,
        output_model=WriteOut,
        handler=create_note,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        confirm="conditional",
        confirm_when=create_note_confirm,
        static_check=base_static_check,
        idempotent=False,
        reads_index=False,
    ),
    ToolSpec(
        name="write_note",
        domain="notes",
        title="Write a note",
        description="Create, overwrite or append to a note (mode). Overwriting non-empty content needs "
        "confirmation unless expected_etag matches. To change part of a note use patch_note. A '.base' "
        "path creates or replaces an Obsidian base (Bases YAML: filters, formulas, properties, views), "
        "checked first as query_base reads it (bases_syntax_error).",
        input_model=WriteNoteIn,
        output_model=WriteOut,
        handler=write_note,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        confirm="conditional",
        confirm_when=write_note_confirm,
        static_check=base_static_check,
        idempotent=False,
        reads_index=False,
    ),
    ToolSpec(
        name="append_note",
        domain="notes",
        title="Append to a note",
        description="Add text at the end of a note. To insert under a heading or next to a block use patch_note.",
        input_model=AppendIn,
        output_model=WriteOut,
        handler=append_note,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
        reads_index=False,
    ),
    ToolSpec(
        name="prepend_note",
        domain="notes",
        title="Prepend to a note",
        description="Add text at the start of a note's body, after its frontmatter.",
        input_model=AppendIn,
        output_model=WriteOut,
        handler=prepend_note,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
        reads_index=False,
    ),
    ToolSpec(
        name="patch_note",
        domain="notes",
        title="Patch a note",
        description="Insert or replace text relative to a heading path, a block id (^id) or a unique text "
        "anchor: before, after, prepend, append or replace. Prefer it to write_note for edits "
        "that leave the rest of the note as it is.",
        input_model=PatchNoteIn,
        output_model=WriteOut,
        handler=patch_note,
        static_check=patch_target_check,  # no target: refused in validate_plan and a dry-run preview too
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
        reads_index=False,
    ),
)
