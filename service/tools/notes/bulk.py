"""notes domain, many at once: bulk_create_notes.

All or nothing: every path is resolved (ACL included) and checked before the first write; a
failed write undoes the notes written before it and removes the folders the call created, so
the vault is left as it was. The checks are the cancellable phase and the writes the shielded
one (`service.vault.commit`): a cancelled call creates every note or none.
Overwriting non-empty notes asks for confirmation unless each such
note carries its `expected_etag` (the same rule as write_note), and so does a call above
`notes.bulk_confirm_above` notes. An `expected_etag` is compared a chunk at a time (a long note is
never held whole to say it exists or to compare it); overwriting a note over `[limits]
max_note_bytes` is refused (`compute_budget_exceeded`): its bytes would be read whole for the undo.
Touches: vault files only.
"""

from __future__ import annotations

from functools import partial

from pydantic import BaseModel, ConfigDict, Field

from service.errors import AlreadyExists, ValidationFailed
from service.markdown.parse import note_title
from service.obs.sessions import caller_hash
from service.plans.recovery import journaled
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput
from service.tools.notes.note_texts import refuse_frontmatter_bomb
from service.tools.notes.targets import create_targets, overwrite_preview, previewed_absent, shown_etag
from service.tools.notes.write_out import LINKS_NOW_HERE, LinkNowHere, listed_taken, taken_links
from service.tools.spec import ToolSpec
from service.vault import notesize, offloop
from service.vault.casing import refuse_batch_twin, refuse_case_twin
from service.vault.commit import Action, Undo, commit
from service.vault.etags import stale_etag
from service.vault.files import VaultFiles
from service.vault.paths import VaultPath


class NewNote(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="Where to create the note ('.md' optional).")
    content: str = Field(default="", description="Note text.")
    expected_etag: str | None = Field(
        default=None,
        description="With overwrite: the etag of the note you read at this path; if it changed (or is gone) "
        "the whole call fails with conflict.",
    )


class BulkCreateIn(ToolInput):
    notes: list[NewNote] = Field(
        min_length=1, max_length=500, description="Notes to create: [{path, content, expected_etag?}]."
    )
    overwrite: bool = Field(
        default=False,
        description="Replace notes that already exist (non-empty ones need confirmation unless their "
        "expected_etag matches).",
    )


class BulkItem(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL.")
    etag: str = Field(description="Content hash.")
    created: bool = Field(description="False when an existing note was overwritten.")
    links_now_here: list[LinkNowHere] | None = Field(default=None, description=LINKS_NOW_HERE)
    links_now_here_count: int | None = Field(default=None, description="How many links `links_now_here` holds in all.")


class BulkCreateOut(ToolOutput):
    items: list[BulkItem] = Field(description="The notes written, in order.")
    next_cursor: None = Field(default=None, description="Always null: every note is in this response.")


async def bulk_create_notes(ctx: ToolContext, args: BulkCreateIn) -> BulkCreateOut:
    """All or nothing: every path is validated and checked first (the cancellable phase); the
    writes run shielded from cancellation, and a failed write undoes the others, including the
    folders the call created (`service.vault.commit`)."""
    files = ctx.vault.files
    steps = ctx.steps("bulk_create_notes")
    targets = await create_targets(ctx, [n.path for n in args.notes])  # one rule for names
    for i, n in enumerate(args.notes):
        refuse_frontmatter_bomb(n.content, f"notes[{i}].content")
    batch = _Batch(ctx, args.overwrite)
    actions: list[Action] = []
    items: list[BulkItem] = []
    for done, (vp, note) in enumerate(zip(targets, args.notes, strict=True), start=1):
        await steps.step("prepare", done, len(targets))
        await batch.check(vp, note)
        actions.append(partial(_create, ctx, vp, note, args.overwrite, items))
    new_folders = [folder for vp in targets for folder in files.missing_folders(vp)]
    caller, goal = caller_hash(ctx.principal.subject), f"bulk_create_notes of {len(actions)} note(s)"
    taken = await taken_links(ctx, [vp.rel for vp in targets if not files.has_note(vp)])
    async with journaled(ctx.services.plans.journal, ctx.vault.id, caller, goal):
        try:
            await commit(actions, steps)
        except BaseException:
            files.remove_empty_folders(new_folders)
            raise
    for item in items:
        if item.created:
            item.links_now_here, item.links_now_here_count = listed_taken(item.path, taken)
    return BulkCreateOut(items=items)


class _Batch:
    """The checks each note of a batch passes before anything is written: one note named twice
    (`A` and `A.md`), a case twin of a file there or of a note made earlier in the batch, an
    existing note without `overwrite`, a stale `expected_etag`. The handler runs them, and so does
    the confirmation before it asks a human, so a call that cannot run never asks."""

    __slots__ = ("ctx", "overwrite", "seen", "folded", "listed")

    def __init__(self, ctx: ToolContext, overwrite: bool) -> None:
        self.ctx = ctx
        self.overwrite = overwrite
        self.seen: set[str] = set()
        self.folded: dict[str, str] = {}  # each new path's folders and file, case folded: as spelled here
        self.listed: dict[str, dict[str, str]] = {}  # each folder read and case folded once for the twin check

    async def check(self, vp: VaultPath, note: NewNote) -> None:
        if vp.rel in self.seen:
            raise ValidationFailed(f"{vp.rel!r} appears twice", details={"field": "notes", "path": vp.rel})
        self.seen.add(vp.rel)
        files = self.ctx.vault.files  # a long note's read and hash: in a worker thread (review R2 s64 F7)
        if note.expected_etag is None:
            current = "" if files.has_note(vp) else None  # nothing to compare: nothing read
        else:
            current = await offloop.sized(offloop.size_of(vp), files.current_etag, vp)
        if current is None:  # a new path: no case twin of a file there, nor of one made before it here
            refuse_case_twin(self.ctx.vault.paths.root, vp.rel, listed=self.listed)
            refuse_batch_twin(self.folded, vp.rel)
        if not self.overwrite and current is not None:
            raise AlreadyExists(
                f"a note already exists at {vp.rel!r}" + ("" if vp.rel == note.path else f" (named by {note.path!r})"),
                details={"path": vp.rel},
            )
        if note.expected_etag is not None and current != note.expected_etag:
            raise stale_etag(vp.rel, note.expected_etag, current)
        limit = files.max_note_bytes  # an overwrite keeps the note's bytes for its undo: read whole
        if current is not None and limit is not None and (size := files.stat(vp).size) > limit:
            raise notesize.too_large(vp.rel, size, limit)


def _content(files: VaultFiles, vp: VaultPath) -> bytes | None:
    """The note's bytes now, None for no note (what an undo puts back: its bytes exactly, a cp1252
    or UTF-16 note's encoding and a broken UTF-8 sequence included)."""
    return files.read_bytes(vp) if files.has_note(vp) else None


async def _create(ctx: ToolContext, vp: VaultPath, note: NewNote, overwrite: bool, items: list[BulkItem]) -> Undo:
    """Write one note and record it in `items`; returns how to take the write back."""
    files = ctx.vault.files
    before = await offloop.sized(offloop.size_of(vp), _content, files, vp)
    shown = shown_etag(ctx, vp, note.expected_etag)  # confirmed: the version the human was shown, or conflict
    create_only = not overwrite or previewed_absent(ctx, vp, note.expected_etag)  # shown no note: create it
    result = await files.write(vp, note.content, create_only=create_only, expected_etag=shown)
    title = note_title(vp.rel)
    url = ctx.vault.url(vp.rel)
    items.append(BulkItem(path=vp.rel, title=title, obsidian_url=url, etag=result.etag, created=result.created))

    async def undo() -> None:  # only over our own bytes: an edit made since is a conflict, kept
        if before is None:
            await files.delete(vp, permanent=True, expected_etag=result.etag, own=True)  # a long one unread
        else:
            await files.write(vp, before, expected_etag=result.etag)

    return undo


async def bulk_confirm(ctx: ToolContext, args: BulkCreateIn) -> ChangePreview | None:
    reasons: list[str] = []
    paths: list[str] = []
    # an invalid or denied path fails now, never after a human confirmed
    targets = await create_targets(ctx, [n.path for n in args.notes])
    for note, vp in zip(args.notes, targets, strict=True):
        paths.append(vp.rel)
        if args.overwrite:
            why = await overwrite_preview(ctx, vp, len(note.content.encode()), note.expected_etag)
            if why is not None:
                reasons.append(why)
    limit = ctx.services.settings.notes.bulk_confirm_above
    if len(args.notes) > limit:
        reasons.insert(0, f"create {len(args.notes)} notes (more than {limit}) in one call")
    if not reasons:
        return None  # nothing to ask: the handler checks the batch
    batch = _Batch(ctx, args.overwrite)  # nor a call the checks would refuse once confirmed
    for note, vp in zip(args.notes, targets, strict=True):
        await batch.check(vp, note)
    return ChangePreview.of("; ".join(reasons), paths)  # all or nothing: every note


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="bulk_create_notes",
        domain="notes",
        title="Create many notes",
        description="Create many notes in one call, all or nothing; needs confirmation above a count, "
        "and to overwrite non-empty notes without their expected_etag.",
        input_model=BulkCreateIn,
        output_model=BulkCreateOut,
        handler=bulk_create_notes,
        scopes=("write:vault",),
        scope_class="bulk",
        mutating=True,
        confirm="conditional",
        confirm_when=bulk_confirm,
        idempotent=False,
    ),
)
