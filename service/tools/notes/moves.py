"""notes domain, link-safe moves: move_note and rename_note.

A note, an attachment or a whole folder moves; every link that pointed at a moved file is
rewritten, all or nothing, with a dry-run preview (the link repair without a move is
`service.tools.graph.rewrite`).
Touches: vault files through `VaultFiles` (writes publish "modified", moves "moved", so the
index follows before the call returns); index tables `notes`, `links` to find linking notes;
`.obsidian/bookmarks.json` and `workspace.json` (`workspace-mobile.json`) where they name a moved file.
Confirmation: when the move crosses folders and is not a dry run. Prechecks (before any
confirmation): the source exists, the destination is free, the caller may write both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from functools import partial

from pydantic import BaseModel, Field

from service.errors import AclDenied, AlreadyExists, Conflict, NotANote, NoteNotFound, PathInvalid
from service.graph.bookmark_paths import BOOKMARKS
from service.graph.linkpath import PathSet, base_name, folder_of
from service.graph.moves import (
    NAMES_PER_LINE,
    MovePlan,
    Page,
    apply_plan,
    files_under,
    move_lock,
    paths_moved,
    plan_move,
)
from service.graph.queries import GraphQueries
from service.graph.rewrite import link_names, rewrite_note
from service.indexer import caps
from service.markdown.parse import note_title
from service.obs.sessions import caller_hash
from service.obsidian.attachments import with_extension_of
from service.plans.recovery import journaled
from service.policy.confirmations import ChangePreview
from service.security.acl import hidden_denial
from service.tools.change_pages import (
    ChangeListIn,
    bounds,
    index_stamp,
    keep_walk,
    kept_walk,
    paged,
    preview_key,
    start_of,
)
from service.tools.context import ToolContext
from service.tools.graph_common import (
    FileChangeItem,
    complete_index,
    edit_items,
    kept_changes,
    note_item,
    preview,
)
from service.tools.models import ToolOutput
from service.tools.notes import move_confirmed
from service.tools.notes.base_files import note_or_file, refuse_folder_and_note
from service.tools.spec import ConfirmWhen, Precheck, ToolSpec
from service.vault.commit import Steps
from service.vault.paths import normalize, renamed, with_md
from service.vault.readonly import refuse_read_only


class MoveIn(ChangeListIn):
    path: str = Field(
        description="Note, file or folder to move: its path; a note also as a wikilink names it, any other file "
        "(a canvas, a .base, an image) by its name with its extension as an embed names it ('Board.canvas')."
    )
    new_path: str = Field(
        description="Where it goes: a full vault path ('Archive/Plan.md'; '[[…]]' around it is dropped), or a "
        "folder ending in '/' ('Archive/': into it, keeping the name). For rename_note a bare name ('Plan v2') "
        "keeps the current folder."
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
    old_path: str = Field(description="Where it was: the path the given address resolved to.")
    title: str = Field(description="Title of the moved note (folder name for a folder).")
    obsidian_url: str = Field(description="obsidian://open URL of the new location.")
    dry_run: bool = Field(description="True when nothing was changed.")
    moved: list[MovedPair] = Field(description="Files that move (this page: at most `limit`).")
    items: list[FileChangeItem] = Field(
        description="Notes whose links are rewritten, with each line (this page: at most `limit`)."
    )
    files_moved: int = Field(description="Number of files that move (all of them).")
    files_changed: int = Field(
        description="Number of files the move changes (all of them): each moved file at its old and its new "
        "path, each note whose links it rewrites, each settings file it repoints; what a confirmation lists."
    )
    notes_rewritten: int = Field(
        description="Number of notes whose links it rewrites (all of them; `items` pages through them), a moved "
        "note linking to itself among them."
    )
    links_rewritten: int = Field(description="Number of lines with rewritten links (all of them).")
    bookmarks_updated: int = Field(
        default=0, description="Obsidian bookmarks (.obsidian/bookmarks.json) repointed at the new paths."
    )
    settings_updated: list[str] = Field(
        default_factory=list,
        description="Obsidian's files rewritten to follow the move: bookmarks.json, workspace.json (open tabs, "
        "recent files), as Obsidian does on a rename.",
    )
    truncated: bool = Field(description="True when `moved`/`items` list only some of the changes.")
    next_cursor: str | None = Field(default=None, description="Dry run: cursor of the next preview page.")


async def _source(ctx: ToolContext, path: str) -> tuple[str, bool]:
    """(rel, is_folder) of an existing folder or file at `path`, else of the note it addresses.

    What the path names does not depend on the caller's write scope: a folder or file the
    caller may read is taken as written and then needs write access (`acl_denied` on it), as
    for a full-access caller. Only what the caller may not read is looked past, to the note
    the address names, as every note tool does, so an unreadable folder is not revealed."""
    denied: AclDenied | None = None
    try:
        seen = ctx.resolve(path, "read")
    except AclDenied:
        seen = None
    except PathInvalid:
        seen = None  # '[[Plan|text]]' is no path, but an address
    if seen is not None and (seen.abs.is_dir() or seen.abs.is_file()):
        refuse_folder_and_note(ctx, path, seen)  # 'Projects' beside 'Projects.md': asked, not guessed
        return ctx.resolve(path, "write").rel, seen.abs.is_dir()
    try:
        ctx.resolve(path, "write")
    except AclDenied as exc:
        denied = exc  # answered unless the address names a note elsewhere
    except PathInvalid:
        pass
    try:  # a note, or another file by its name as `![[Board.canvas]]` names it (`note_or_file`)
        return (await note_or_file(ctx, path, "write")).rel, False
    except (NoteNotFound, NotANote):
        if denied is not None:
            raise denied from None
        raise


def _destination(src: str, is_folder: bool, new_path: str, rename: bool) -> str:
    """Where `src` goes. A destination in a wikilink's brackets (`[[Plan v2]]`) is the name inside
    them, as for every tool that makes a note (`ToolContext.resolve_note`): never a file named
    `[[Plan v2]].md` that each link rewritten to it would break. A destination ending in `/`
    (`Archive/`) is the folder it goes into, keeping its name (`Archive/Plan.md`), as `mv` reads
    it; never a note named after the folder."""
    text = new_path.strip()
    given = text[2:-2] if len(text) > 4 and text.startswith("[[") and text.endswith("]]") else new_path
    rel = normalize(given)
    if given.strip().endswith("/") and given.strip().strip("/"):  # 'Archive/': into it, keeping the name
        rel = f"{rel}/{src.rsplit('/', 1)[-1]}"
    if rename and "/" not in rel:
        parent = folder_of(src)
        rel = f"{parent}/{rel}" if parent else rel
    if not is_folder:
        rel = _with_extension(src, rel)
    if is_folder and (rel == src or rel.startswith(src + "/")):
        raise PathInvalid("a folder cannot move into itself", details={"path": src, "new_path": rel})
    return rel


def _with_extension(src: str, rel: str) -> str:
    """A note's new path ends in '.md' (`with_md`); any other file keeps its extension when the
    new name has none of its own (`attachments.with_extension_of`: 'Library.base' renamed 'Shelf'
    is 'Shelf.base', still a base, not a file 'Shelf' query_base and Obsidian cannot open)."""
    return with_md(rel) if src.lower().endswith(".md") else with_extension_of(src, rel)


async def _endpoints(ctx: ToolContext, args: MoveIn, rename: bool) -> tuple[str, str, bool]:
    """(src, dst, is_folder) after the checks that need no plan: the source exists and may be
    written, the destination may be written and is free, the etag still matches."""
    src, is_folder = await _source(ctx, args.path)
    dst = ctx.resolve(_destination(src, is_folder, args.new_path, rename), "write").rel
    if args.expected_etag is not None and not is_folder:
        current = ctx.vault.files.current_etag(ctx.resolve(src, "write"))
        if current != args.expected_etag:
            raise Conflict(
                f"{src!r} changed since it was read",
                details={"path": src, "expected_etag": args.expected_etag, "current_etag": current},
            )
    if not is_folder:  # a note made read-only (chmod a-w) is not moved: refused before a human is asked
        refuse_read_only(ctx.resolve(src, "write").abs, src, entry=True)
    target = ctx.resolve(dst, "write")
    if dst.lower() != src.lower():
        if target.abs.exists():
            raise AlreadyExists(f"something already exists at {dst!r}", details={"path": dst})
        # a name this vault may not create fails before a preview; a note keeping its own name
        # (another folder, or its letter case) makes no new name
        await asyncio.to_thread(ctx.vault.files.check_new, target, file=renamed(src, dst))  # lists a folder
    return src, dst, is_folder


def _precheck_move(rename: bool) -> Precheck:
    async def precheck(ctx: ToolContext, args: MoveIn) -> None:
        start_of(args, args.dry_run)
        await _endpoints(ctx, args, rename)

    return precheck


async def _plan(
    ctx: ToolContext,
    args: MoveIn,
    rename: bool,
    steps: Steps | None = None,
    page: Page | None = None,
    *,
    confirming: bool = False,
) -> tuple[MovePlan, str, str, bool]:
    """The move's plan. `confirming`: planned for the call's confirmation, which keeps it for the
    call: the move runs it when nothing changed since (`move_confirmed`) instead of planning again."""
    src, dst, is_folder = await _endpoints(ctx, args, rename)
    await complete_index(ctx)  # backlinks come from the index
    # a folder's walk and its files' ACL decisions (100,000 notes: a second or more) off the loop
    moves = await asyncio.to_thread(_moves, ctx, src, dst) if is_folder else _moves(ctx, src, dst, folder=False)
    at = index_stamp(ctx)
    kept, shown = (
        move_confirmed.take(ctx, (src, dst, rename), at, moves) if page is None and not confirming else (None, None)
    )
    if kept is not None:
        return kept, src, dst, is_folder
    folder = (src, dst) if is_folder else None
    previewed = preview_key(ctx, "rename_note" if rename else "move_note", args) if page is not None else None
    plan = await _planner(ctx)(
        moves,
        folder=folder,
        steps=steps,
        admit=partial(_admit, ctx),
        page=page,
        walked=kept_walk(ctx, previewed, at) if previewed is not None else None,
        keep=kept_changes(ctx),
    )
    if previewed is not None:
        keep_walk(ctx, previewed, at, plan.walk)
    if confirming:
        move_confirmed.keep(ctx, (src, dst, rename), at, plan)
    move_confirmed.refuse_other_files(shown, plan, lambda: _preview(ctx, plan, src, dst))
    return plan, src, dst, is_folder


def _planner(ctx: ToolContext) -> Callable[..., Awaitable[MovePlan]]:
    """`plan_move` for the caller, over the index: the notes it may not read are never read nor counted."""
    return partial(plan_move, ctx.vault, GraphQueries(ctx.services.db), readable=ctx.can_read, row_cap=caps.MAX_ROWS)


async def rewritten_by(
    ctx: ToolContext,
    moves: dict[str, str],
    folder: tuple[str, str] | None,
    paths: PathSet,
    texts: Mapping[str, str | None] | None = None,
) -> tuple[list[str], MovePlan]:
    """The notes whose links a move of `moves` (old path -> new; `folder`: the folder that
    moves, and where) rewrites, at their paths after it, over the vault's files `paths` (a
    plan's check: as its earlier steps leave the vault), and the move's plan (its edits counted,
    not held: a hub's thousands of notes; its settings files). A note is taken or refused as the
    call takes it (`_admit`). `texts`: the notes those steps wrote, read as they leave them (a
    note the plan made is no file on disk yet), and those they removed (None): not read on disk."""
    notes: list[str] = []
    planned = texts or {}

    def admit(path: str) -> bool:  # in a worker thread, one batch at a time
        if path in planned or not _admit(ctx, path):
            return False
        notes.append(moves.get(path, path))
        return True

    await complete_index(ctx)
    plan = await _planner(ctx)(moves, folder=folder, admit=admit, page=Page(0, 0), paths=paths)
    if planned:
        notes += await asyncio.to_thread(_planned_edits, ctx, plan, paths, planned)
    return sorted(notes), plan


def _planned_edits(ctx: ToolContext, plan: MovePlan, paths: PathSet, texts: Mapping[str, str | None]) -> list[str]:
    """Count in `plan` the rewrites of the notes `texts` holds (a plan's check: the notes its
    earlier steps wrote, as they leave them), as `plan_move` counts a note on disk; returns them,
    at their paths after the move. Worker thread."""
    moves = plan.moves
    after = paths_moved(paths, moves)
    names = link_names((*moves, *moves.values()))
    found: list[str] = []
    for path, text in sorted((p, t) for p, t in texts.items() if t is not None):
        if not path.lower().endswith(".md") or not ctx.can_read(path):
            continue
        new_path = moves.get(path, path)
        result = rewrite_note(
            text,
            source_before=path,
            source_after=new_path,
            before=paths,
            after=after,
            moved=moves,
            names=names if len(names) <= NAMES_PER_LINE else None,
        )
        if result.changed:
            plan.counted_files += 1
            plan.counted_links += len(result.changes)
            plan.counted_moved += path in moves
            found.append(new_path)
    return found


def _moves(ctx: ToolContext, src: str, dst: str, *, folder: bool = True) -> dict[str, str]:
    """Old path -> new of every file the move moves (a folder's, walked), each one the caller may
    read and write at both paths."""
    moves = {f: dst + f[len(src) :] for f in files_under(ctx.vault, src)} if folder else {src: dst}
    for old, new in moves.items():
        real = ctx.vault.paths.resolve(old).real_rel  # a symlink on the way: decide on its target too
        if not ctx.can_read(old) or (real is not None and not ctx.can_read(real)):
            raise hidden_denial(src, "the folder holds notes you may not read")
        ctx.resolve(old, "write")
        ctx.resolve(new, "write")
    return moves


def _admit(ctx: ToolContext, path: str) -> bool:
    """Links in notes the caller may not read are left alone (as a delete would leave them):
    refusing, or listing them, would reveal that those notes exist. A note it may read but not
    write refuses the move (`acl_denied`), and so does one made read-only (`vault_unwritable`:
    its links would be left pointing at the old path)."""
    if not ctx.can_read(path):
        return False
    refuse_read_only(ctx.resolve(path, "write").abs, path)
    return True


async def _move(ctx: ToolContext, args: MoveIn, rename: bool) -> MoveOut:
    start_of(args, args.dry_run)  # a bad cursor fails before anything changes
    steps = ctx.steps("rename_note" if rename else "move_note")
    # A preview keeps only its page's edits whole (the rest counted); an applying call needs them all.
    offset, end = bounds(args, args.dry_run)
    page = Page(offset, end) if args.dry_run else None
    async with move_lock(ctx.vault):
        plan, src, dst, is_folder = await _plan(ctx, args, rename, steps, page)
        if not args.dry_run:
            label = f"{'rename_note' if rename else 'move_note'} of {src!r} to {dst!r}"
            caller = caller_hash(ctx.principal.subject)
            async with journaled(ctx.services.plans.journal, ctx.vault.id, caller, label):
                await apply_plan(ctx.vault, plan, steps)
    cursor, truncated = paged(args, args.dry_run, len(plan.moves), plan.files_changed)
    moved_page = list(plan.moves.items())[offset:end]
    title = base_name(dst) if is_folder else note_title(dst)  # a file's title is its basename
    return MoveOut(
        **note_item(ctx, dst, title),
        old_path=src,
        dry_run=args.dry_run,
        moved=[MovedPair(old_path=o, new_path=n) for o, n in moved_page],
        items=edit_items(ctx, plan.edits[: args.limit]),
        files_moved=len(plan.moves),
        files_changed=plan.files_touched,
        notes_rewritten=plan.files_changed,
        links_rewritten=plan.links_rewritten,
        bookmarks_updated=_bookmarks(plan),
        settings_updated=sorted(s.path for s in plan.settings if s.changed),
        truncated=truncated,
        next_cursor=cursor,
    )


async def move_note(ctx: ToolContext, args: MoveIn) -> MoveOut:
    return await _move(ctx, args, rename=False)


async def rename_note(ctx: ToolContext, args: MoveIn) -> MoveOut:
    return await _move(ctx, args, rename=True)


def _bookmarks(plan: MovePlan) -> int:
    return sum(s.changed for s in plan.settings if s.path == BOOKMARKS)


def _preview(ctx: ToolContext, plan: MovePlan, src: str, dst: str) -> ChangePreview:
    """What a human approves of a move: its files and bookmarks, each rewritten line, every file."""
    marks = _bookmarks(plan)
    also = f" and repoint {marks} bookmarks" if marks else ""
    head = [f"Move {src!r} to {dst!r} ({len(plan.moves)} files){also}; rewrite links in {len(plan.edits)} notes:"]
    return preview(head, edit_items(ctx, plan.edits), move_confirmed.changed_files(plan))


def _confirm_move(rename: bool) -> ConfirmWhen:
    async def confirm_when(ctx: ToolContext, args: MoveIn) -> ChangePreview | None:
        if args.dry_run:
            return None
        src, is_folder = await _source(ctx, args.path)
        dst = _destination(src, is_folder, args.new_path, rename)
        if folder_of(src) == folder_of(dst):
            return None
        plan, src, dst, _ = await _plan(ctx, args, rename, confirming=True)
        return _preview(ctx, plan, src, dst)

    return confirm_when


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="move_note",
        domain="notes",
        title="Move a note or folder",
        description="Move a note, file or folder and rewrite every link that pointed at it (all or nothing). "
        "dry_run previews each file and line that would change. Cross-folder moves need "
        "confirmation. To change only the name, rename_note.",
        input_model=MoveIn,
        output_model=MoveOut,
        handler=move_note,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        confirm="conditional",
        confirm_when=_confirm_move(rename=False),
        precheck=_precheck_move(rename=False),
        idempotent=False,
    ),
    ToolSpec(
        name="rename_note",
        domain="notes",
        title="Rename a note or folder",
        description="Rename a note, file or folder (a bare new name keeps the folder) and rewrite every link "
        "to it, all or nothing; dry_run previews the changes. To move it to another folder use "
        "move_note.",
        input_model=MoveIn,
        output_model=MoveOut,
        handler=rename_note,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        confirm="conditional",
        confirm_when=_confirm_move(rename=True),
        precheck=_precheck_move(rename=True),
        idempotent=False,
    ),
)
