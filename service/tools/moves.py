"""moves domain: link-safe moves and link repair.

Tools: move_note, rename_note (a note, an attachment or a whole folder; every link that
pointed at a moved file is rewritten, all or nothing, with a dry-run preview), rewrite_links
(repoint links from an old target to a new one; dry-run by default).
Touches: vault files through `VaultFiles` (writes publish "modified", moves "moved", so the
index follows before the call returns); index tables `notes`, `links` to find linking notes.
Confirmation: move/rename when the move crosses folders and is not a dry run; rewrite_links
when it is not a dry run and changes something. Prechecks (before any confirmation): the source
exists, the destination is free, the caller may write both; rewrite_links' new target exists.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from service.errors import AlreadyExists, Conflict, NoteNotFound, PathInvalid
from service.graph.linkpath import PathSet, base_name, folder_of, strip_md
from service.graph.moves import FileEdit, MovePlan, apply_plan, files_under, move_lock, plan_move, vault_files
from service.graph.queries import GraphQueries
from service.graph.rewrite import rewrite_note
from service.security.acl import hidden_denial
from service.tools.change_pages import ChangeListIn, start_of, window
from service.tools.context import ToolContext
from service.tools.graph_common import FileChangeItem, change_item, complete_index, note_item, preview
from service.tools.models import ToolInput, ToolOutput
from service.tools.registry import ConfirmWhen, Handler, Precheck, ToolSpec
from service.vault.paths import VaultPath, normalize, with_md


class MoveIn(ChangeListIn):
    path: str = Field(description="Note, file or folder to move ('.md' optional for notes).")
    new_path: str = Field(
        description="Where it goes: a full vault path ('Archive/Plan.md'). For rename_note a bare "
        "name ('Plan v2') keeps the current folder."
    )
    dry_run: bool = Field(
        default=False, description="Only report what would move and each line that would change (paged: limit/cursor)."
    )
    expected_etag: str | None = Field(
        default=None, description="For a note: fail with `conflict` unless its content hash is still this."
    )


class MovedPair(BaseModel):
    old_path: str = Field(description="Path before the move.")
    new_path: str = Field(description="Path after the move.")


class MoveOut(ToolOutput):
    path: str = Field(description="The new path of the moved note or folder.")
    title: str = Field(description="Title of the moved note (folder name for a folder).")
    obsidian_url: str = Field(description="obsidian://open URL of the new location.")
    dry_run: bool = Field(description="True when nothing was changed.")
    moved: list[MovedPair] = Field(description="Files that move (this page: at most `limit`).")
    items: list[FileChangeItem] = Field(
        description="Notes whose links are rewritten, with each line (this page: at most `limit`)."
    )
    files_moved: int = Field(description="Number of files that move (all of them).")
    files_changed: int = Field(description="Number of notes whose text changes (all of them).")
    links_rewritten: int = Field(description="Number of lines with rewritten links (all of them).")
    truncated: bool = Field(description="True when `moved`/`items` list only some of the changes.")
    next_cursor: str | None = Field(default=None, description="Dry run: cursor of the next preview page.")


def _source(ctx: ToolContext, path: str) -> tuple[str, bool]:
    """(rel, is_folder) of an existing note, file or folder."""
    vp = ctx.resolve(path, "write")
    if vp.abs.is_dir():
        return vp.rel, True
    if vp.abs.is_file():
        return vp.rel, False
    note = ctx.resolve_note(path, "write")
    if note.abs.is_file():
        return note.rel, False
    raise NoteNotFound(f"no note, file or folder at {vp.rel!r}", details={"path": vp.rel})


def _destination(src: str, is_folder: bool, new_path: str, rename: bool) -> str:
    rel = normalize(new_path)
    if rename and "/" not in rel:
        parent = folder_of(src)
        rel = f"{parent}/{rel}" if parent else rel
    if not is_folder and src.lower().endswith(".md"):
        rel = with_md(rel)
    if is_folder and (rel == src or rel.startswith(src + "/")):
        raise PathInvalid("a folder cannot move into itself", details={"path": src, "new_path": rel})
    return rel


def _endpoints(ctx: ToolContext, args: MoveIn, rename: bool) -> tuple[str, str, bool]:
    """(src, dst, is_folder) after the checks that need no plan: the source exists and may be
    written, the destination may be written and is free, the etag still matches."""
    src, is_folder = _source(ctx, args.path)
    dst = ctx.resolve(_destination(src, is_folder, args.new_path, rename), "write").rel
    if args.expected_etag is not None and not is_folder:
        current = ctx.vault.files.current_etag(ctx.resolve(src, "write"))
        if current != args.expected_etag:
            raise Conflict(
                f"{src!r} changed since it was read",
                details={"path": src, "expected_etag": args.expected_etag, "current_etag": current},
            )
    if ctx.resolve(dst, "write").abs.exists() and dst.lower() != src.lower():
        raise AlreadyExists(f"something already exists at {dst!r}", details={"path": dst})
    return src, dst, is_folder


def _precheck_move(rename: bool) -> Precheck:
    async def precheck(ctx: ToolContext, args: MoveIn) -> None:
        start_of(args, args.dry_run)
        _endpoints(ctx, args, rename)

    return precheck


async def _plan(ctx: ToolContext, args: MoveIn, rename: bool) -> tuple[MovePlan, str, bool]:
    src, dst, is_folder = _endpoints(ctx, args, rename)
    await complete_index(ctx)  # backlinks come from the index
    moves = {f: dst + f[len(src) :] for f in files_under(ctx.vault, src)} if is_folder else {src: dst}
    for old, new in moves.items():
        real = ctx.vault.paths.resolve(old).real_rel  # a symlink on the way: decide on its target too
        if not ctx.can_read(old) or (real is not None and not ctx.can_read(real)):
            raise hidden_denial(src, "the folder holds notes you may not read")
        ctx.resolve(old, "write")
        ctx.resolve(new, "write")
    plan = await plan_move(ctx.vault, GraphQueries(ctx.services.db), moves, folder=src if is_folder else None)
    # Links in notes the caller may not read are left alone (as a delete would leave them):
    # refusing, or listing them, would reveal that those notes exist.
    plan.edits = [edit for edit in plan.edits if ctx.can_read(edit.path)]
    for edit in plan.edits:
        ctx.resolve(edit.path, "write")
    return plan, dst, is_folder


def _items(ctx: ToolContext, edits: list[FileEdit]) -> list[FileChangeItem]:
    return [change_item(ctx, e.path, e.changes, new_path=e.new_path) for e in edits if ctx.can_read(e.path)]


async def _move(ctx: ToolContext, args: MoveIn, rename: bool) -> MoveOut:
    start_of(args, args.dry_run)  # a bad cursor fails before anything changes
    async with move_lock(ctx.vault):
        plan, dst, is_folder = await _plan(ctx, args, rename)
        if not args.dry_run:
            if is_folder and not plan.moves:
                await ctx.vault.files.move(ctx.resolve(args.path, "write"), ctx.resolve(dst, "write"))
            else:
                await apply_plan(ctx.vault, plan)
    (moved_page, edits), cursor, truncated = window(args, args.dry_run, list(plan.moves.items()), plan.edits)
    title = base_name(dst) if is_folder else strip_md(base_name(dst))
    if not is_folder and not args.dry_run:
        from service.markdown.parse import title_of

        # The caller read this note at its source (a move needs read); a write-only destination
        # must not turn a completed move into an error.
        moved = ctx.vault.paths.resolve(dst)
        title = title_of(dst, ctx.vault.files.read(moved).content) if dst.endswith(".md") else title
    return MoveOut(
        **note_item(ctx, dst, title),
        dry_run=args.dry_run,
        moved=[MovedPair(old_path=o, new_path=n) for o, n in moved_page],
        items=_items(ctx, edits),
        files_moved=len(plan.moves),
        files_changed=len(plan.edits),
        links_rewritten=plan.links_rewritten,
        truncated=truncated,
        next_cursor=cursor,
    )


async def move_note(ctx: ToolContext, args: MoveIn) -> MoveOut:
    return await _move(ctx, args, rename=False)


async def rename_note(ctx: ToolContext, args: MoveIn) -> MoveOut:
    return await _move(ctx, args, rename=True)


def _confirm_move(rename: bool) -> ConfirmWhen:
    async def confirm_when(ctx: ToolContext, args: MoveIn) -> str | None:
        if args.dry_run:
            return None
        src, is_folder = _source(ctx, args.path)
        dst = _destination(src, is_folder, args.new_path, rename)
        if folder_of(src) == folder_of(dst):
            return None
        plan, dst, _ = await _plan(ctx, args, rename)
        head = [f"Move {src!r} to {dst!r} ({len(plan.moves)} files); rewrite links in {len(plan.edits)} notes:"]
        return preview(head, _items(ctx, plan.edits))

    return confirm_when


class RewriteLinksIn(ChangeListIn):
    old_target: str = Field(description="The path links point at now (it may no longer exist), '.md' optional.")
    new_target: str = Field(description="The existing note or file the links should point at instead.")
    dry_run: bool = Field(default=True, description="Default true: only list each file and line that would change.")


class RewriteLinksOut(ToolOutput):
    dry_run: bool = Field(description="True when nothing was changed.")
    items: list[FileChangeItem] = Field(
        description="Notes whose links change, with each line (this page: at most `limit`)."
    )
    files_changed: int = Field(description="Number of notes whose text changes (all of them).")
    links_rewritten: int = Field(description="Number of lines with rewritten links (all of them).")
    truncated: bool = Field(description="True when `items` lists only some of the changes.")
    next_cursor: str | None = Field(default=None, description="Dry run: cursor of the next preview page.")


def _rewrite_targets(ctx: ToolContext, args: RewriteLinksIn) -> tuple[str, VaultPath]:
    """(old, new) after the checks that need no plan: new_target exists and differs from old."""
    new = ctx.resolve(args.new_target, "read")
    if not new.abs.is_file():
        new = ctx.resolve_note(args.new_target, "read")
        if not new.abs.is_file():
            raise NoteNotFound(f"no note at {new.rel!r}", details={"path": new.rel})
    old_raw = ctx.resolve(args.old_target, "read")
    old = old_raw.rel if old_raw.abs.is_file() or "." in base_name(old_raw.rel) else with_md(old_raw.rel)
    if old == new.rel:
        raise PathInvalid("old_target and new_target are the same", details={"path": old})
    return old, new


async def precheck_rewrite(ctx: ToolContext, args: RewriteLinksIn) -> None:
    start_of(args, args.dry_run)
    _rewrite_targets(ctx, args)


async def _rewrite_plan(ctx: ToolContext, args: RewriteLinksIn) -> MovePlan:
    old, new = _rewrite_targets(ctx, args)
    await complete_index(ctx)
    files = vault_files(ctx.vault)
    before, after = PathSet([*files, old]), PathSet(files)
    q = GraphQueries(ctx.services.db)
    candidates = set(await q.sources_of_names(ctx.vault.id, [strip_md(base_name(old)).lower()]))
    candidates.update(e.source for e in await q.backlinks(ctx.vault.id, [old]))
    plan = MovePlan(moves={})
    targets = frozenset({old})
    for path in sorted(candidates):
        if not ctx.can_read(path):  # left alone, never revealed (see _plan)
            continue
        vp = ctx.resolve(path, "read")
        try:
            note = ctx.vault.files.read(vp)
        except NoteNotFound:
            continue
        result = rewrite_note(
            note.content,
            source_before=path,
            source_after=path,
            before=before,
            after=after,
            moved={old: new.rel},
            only_targets=targets,
        )
        if result.changed:
            ctx.resolve(path, "write")
            plan.edits.append(FileEdit(path, path, note.etag, note.content, result.text, result.changes))
    return plan


async def rewrite_links(ctx: ToolContext, args: RewriteLinksIn) -> RewriteLinksOut:
    start_of(args, args.dry_run)  # a bad cursor fails before anything changes
    async with move_lock(ctx.vault):
        plan = await _rewrite_plan(ctx, args)
        if not args.dry_run:
            await apply_plan(ctx.vault, plan)
    (edits,), cursor, truncated = window(args, args.dry_run, plan.edits)
    return RewriteLinksOut(
        dry_run=args.dry_run,
        items=_items(ctx, edits),
        files_changed=len(plan.edits),
        links_rewritten=plan.links_rewritten,
        truncated=truncated,
        next_cursor=cursor,
    )


async def confirm_rewrite(ctx: ToolContext, args: RewriteLinksIn) -> str | None:
    if args.dry_run:
        return None
    plan = await _rewrite_plan(ctx, args)
    head = [f"Repoint links from {args.old_target!r} to {args.new_target!r} in {len(plan.edits)} notes:"]
    return preview(head, _items(ctx, plan.edits))


def _spec(
    name: str,
    title: str,
    description: str,
    input_model: type[ToolInput],
    output_model: type[ToolOutput],
    handler: Handler,
    confirm_when: ConfirmWhen,
    precheck: Precheck,
) -> ToolSpec:
    return ToolSpec(
        name=name,
        domain="moves",
        title=title,
        description=description,
        input_model=input_model,
        output_model=output_model,
        handler=handler,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
        confirm="conditional",
        confirm_when=confirm_when,
        precheck=precheck,
    )


def tools() -> list[ToolSpec]:
    return [
        _spec(
            "move_note",
            "Move a note or folder",
            "Move a note, file or folder and rewrite every link that pointed at it (all or nothing). "
            "dry_run previews each file and line that would change. Cross-folder moves need confirmation.",
            MoveIn,
            MoveOut,
            move_note,
            _confirm_move(rename=False),
            _precheck_move(rename=False),
        ),
        _spec(
            "rename_note",
            "Rename a note or folder",
            "Rename a note, file or folder (a bare new name keeps the folder) and rewrite every "
            "link to it, all or nothing; dry_run previews the changes.",
            MoveIn,
            MoveOut,
            rename_note,
            _confirm_move(rename=True),
            _precheck_move(rename=True),
        ),
        _spec(
            "rewrite_links",
            "Repoint links",
            "Fix links that point at an old target so they point at a new one. Dry-run by default: "
            "lists each file and line that would change; applying needs confirmation.",
            RewriteLinksIn,
            RewriteLinksOut,
            rewrite_links,
            confirm_rewrite,
            precheck_rewrite,
        ),
    ]
