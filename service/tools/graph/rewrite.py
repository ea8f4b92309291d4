"""graph domain, link repair: rewrite_links (repoint links from an old target to a new one;
dry-run by default). A canvas's file nodes and group backgrounds naming the old target are
repointed too (`service.graph.canvas_paths`), like the links in its text nodes.

Touches: vault files through `VaultFiles` (writes publish "modified", so the index follows
before the call returns); index tables `notes`, `links` to find linking notes.
Confirmation: when it is not a dry run and changes something. Precheck (before any
confirmation): the new target exists and differs from the old one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pydantic import Field

from service.errors import NotANote, NoteNotFound, PathInvalid
from service.graph.canvas_paths import is_canvas, rewrite_canvas
from service.graph.linkpath import PathSet, base_name, strip_md
from service.graph.moves import (
    FileEdit,
    MovePlan,
    Page,
    Walked,
    move_lock,
    scan,
    scan_page,
    vault_files,
)
from service.graph.oversized import read_or_refuse
from service.graph.plan_clock import PlanClock
from service.graph.property_sources import property_sources
from service.graph.queries import GraphQueries
from service.graph.rewrite import Rewrite, link_names, rewrite_note
from service.policy.confirmations import ChangePreview
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
    apply_journaled,
    complete_index,
    edit_items,
    edits_preview,
    kept_changes,
)
from service.tools.models import ToolOutput
from service.tools.spec import ToolSpec
from service.vault.commit import Steps
from service.vault.paths import VaultPath, with_md


class RewriteLinksIn(ChangeListIn):
    old_target: str = Field(
        description="What links point at now: an existing note by any address (name, path, alias, wikilink), "
        "else the path they name, which may no longer exist ('.md' optional)."
    )
    new_target: str = Field(
        description="The existing note or file the links should point at instead (a note also as a wikilink names it)."
    )
    dry_run: bool = Field(default=True, description="Default true: only list each file and line that would change.")


class RewriteLinksOut(ToolOutput):
    old_target: str = Field(description="The vault path the links pointed at.")
    new_target: str = Field(description="The path of the note or file they point at now (as resolved).")
    dry_run: bool = Field(description="True when nothing was changed.")
    items: list[FileChangeItem] = Field(
        description="Notes whose links change, with each line (this page: at most `limit`)."
    )
    files_changed: int = Field(description="Number of notes whose text changes (all of them).")
    links_rewritten: int = Field(description="Number of lines with rewritten links (all of them).")
    truncated: bool = Field(description="True when `items` lists only some of the changes.")
    next_cursor: str | None = Field(default=None, description="Dry run: cursor of the next preview page.")


async def old_target(ctx: ToolContext, address: str) -> str:
    """The path the links point at. An address that names an existing note (a bare name, a
    partial path, an alias, a wikilink: what get_backlinks takes) is that note, so every link to
    it is repointed; any other is the path as written ('.md' optional, '[[…]]' dropped), which
    may no longer exist."""
    text = address.strip()
    text = text[2:-2] if len(text) > 4 and text.startswith("[[") and text.endswith("]]") else text
    literal: VaultPath | PathInvalid
    try:
        literal = ctx.resolve(text, "read")
    except PathInvalid as exc:
        literal = exc  # no path, but it may be a note's address ('[[Plan|text]]')
    if isinstance(literal, VaultPath) and literal.abs.is_file():
        return literal.rel
    try:
        return (await ctx.find_note(address, "read", section="reject")).vp.rel
    except (NoteNotFound, NotANote):
        if isinstance(literal, PathInvalid):
            raise literal from None
    return literal.rel if "." in base_name(literal.rel) else with_md(literal.rel)


async def _rewrite_targets(ctx: ToolContext, args: RewriteLinksIn) -> tuple[str, VaultPath]:
    """(old, new) after the checks that need no plan: new_target exists and differs from old."""
    new: VaultPath | None
    try:
        new = ctx.resolve(args.new_target, "read")
    except PathInvalid:
        new = None  # no path, but it may be a note's address ('[[Plan|text]]')
    if new is None or not new.abs.is_file():
        new = (await ctx.find_note(args.new_target, "read", section="reject")).vp
    old = await old_target(ctx, args.old_target)
    if old == new.rel:
        raise PathInvalid(
            "old_target and new_target are the same",
            details={"path": old, "reason": "same_target"},
            hint="Nothing to repoint: give as new_target the note the links should reach now.",
        )
    return old, new


async def precheck_rewrite(ctx: ToolContext, args: RewriteLinksIn) -> None:
    start_of(args, args.dry_run)
    await _rewrite_targets(ctx, args)


def _path_sets(ctx: ToolContext, old: str, files: list[str] | None) -> tuple[PathSet, PathSet]:
    """The vault's paths with `old` (which may be gone already: links naming it are repointed)
    and as they are: a walk of the whole vault (without `files`), run in a worker thread."""
    files = vault_files(ctx.vault) if files is None else files
    return PathSet([*files, old]), PathSet(files)


async def _rewrite_plan(
    ctx: ToolContext, args: RewriteLinksIn, steps: Steps | None = None, page: Page | None = None
) -> tuple[MovePlan, str, str]:
    old, new = await _rewrite_targets(ctx, args)
    if page is None:
        return await plan_rewrite(ctx, old, new.rel, steps=steps), old, new.rel
    key, at = preview_key(ctx, "rewrite_links", args), index_stamp(ctx)
    plan = await plan_rewrite(ctx, old, new.rel, steps=steps, page=page, walked=kept_walk(ctx, key, at))
    keep_walk(ctx, key, at, plan.walk)
    return plan, old, new.rel


async def plan_rewrite(
    ctx: ToolContext,
    old: str,
    new: str,
    *,
    steps: Steps | None = None,
    page: Page | None = None,
    files: list[str] | None = None,
    admit: Callable[[str], bool] | None = None,
    walked: Walked | None = None,
) -> MovePlan:
    """The edits that repoint the links resolving to `old` at `new`, in the notes on disk, over
    the vault's files as `files` lists them where they are not the ones on disk (a plan's check:
    as its earlier steps leave the vault; `new` may be a note one of them makes). `admit(path)`:
    whether a note whose links change is part of it (called in a worker thread). `walked`: what
    an earlier page of the same preview found (`scan_page`), the vault unchanged since."""
    await complete_index(ctx)
    clock = PlanClock(ctx.vault.limits)  # the whole plan's budget
    before, after = await asyncio.to_thread(_path_sets, ctx, old, files)
    plan = MovePlan(moves={})

    def edit_of(path: str) -> FileEdit | None:
        if not ctx.can_read(path):  # left alone, never revealed (see service.tools.notes.moves)
            return None
        vp = ctx.resolve(path, "read")
        try:  # over [limits] max_note_bytes: refused if it may link to `old` (`oversized`), else passed by
            note = read_or_refuse(ctx.vault.files, vp, link_names((old, new)))
        except NoteNotFound:
            return None
        if note is None:
            return None
        result = repointed(note.content, path, old, new, before, after, kept_changes(ctx))
        if not result.changed:
            return None
        ctx.resolve(path, "write")
        if admit is not None and not admit(path):
            return None
        return FileEdit(path, path, note.etag, note.content, result.text, result.changes, note.encoding)

    if walked is not None and page is not None and await scan_page(plan, walked, edit_of, page, steps, clock):
        return plan
    q = GraphQueries(ctx.services.db)
    candidates = set(await q.sources_of_names(ctx.vault.id, [strip_md(base_name(old)).lower()]))
    candidates.update(e.source for e in await q.backlinks(ctx.vault.id, [old]))
    candidates.update(await property_sources(q.db, ctx.vault.id, link_names({old})))  # `up: "[[T]]"`
    candidates.update(await q.longer_than(ctx.vault.id, ctx.services.settings.limits.max_indexed_note_chars))
    readable = await asyncio.to_thread(set, filter(ctx.can_read, candidates))  # the others never counted
    await scan(plan, sorted(readable), edit_of, page=page, steps=steps, clock=clock)
    return plan


def repointed(
    text: str, path: str, old: str, new: str, before: PathSet, after: PathSet, keep: int | None = None
) -> Rewrite:
    """The note at `path` (`text`) with its links that resolve to `old` (over `before`: the vault's
    paths with `old`) repointed at `new` (over `after`: as they are), as rewrite_links writes it (a
    plan's check foresees the step's notes with it: `service.tools.sessions.plan_texts`). `keep`:
    how many changed lines are kept, not only counted (`LineChanges`; a canvas keeps all)."""
    targets = frozenset({old})
    result = rewrite_note(
        text,
        source_before=path,
        source_after=path,
        before=before,
        after=after,
        moved={old: new},
        only_targets=targets,
        names=link_names(targets),  # a link that resolves to `old` names it
        keep=None if is_canvas(path) else keep,
    )
    return rewrite_canvas(result, {old: new}) if is_canvas(path) else result


async def rewrite_links(ctx: ToolContext, args: RewriteLinksIn) -> RewriteLinksOut:
    start_of(args, args.dry_run)  # a bad cursor fails before anything changes
    steps = ctx.steps("rewrite_links")
    # A preview keeps only its page's edits whole (the rest counted); an applying call needs them all.
    page = Page(*bounds(args, True)) if args.dry_run else None
    async with move_lock(ctx.vault):
        plan, old, new = await _rewrite_plan(ctx, args, steps, page)
        if not args.dry_run:
            await apply_journaled(ctx, plan, steps, f"rewrite_links of {old!r} to {new!r}")
    cursor, truncated = paged(args, args.dry_run, plan.files_changed)
    return RewriteLinksOut(
        old_target=old,
        new_target=new,
        dry_run=args.dry_run,
        items=edit_items(ctx, plan.edits[: args.limit]),
        files_changed=plan.files_changed,
        links_rewritten=plan.links_rewritten,
        truncated=truncated,
        next_cursor=cursor,
    )


async def confirm_rewrite(ctx: ToolContext, args: RewriteLinksIn) -> ChangePreview | None:
    if args.dry_run:
        return None
    plan, old, new = await _rewrite_plan(ctx, args)
    return await edits_preview(ctx, plan, f"Repoint links from {old!r} to {new!r} in {len(plan.edits)} notes:")


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="rewrite_links",
        domain="graph",
        title="Repoint links",
        description="Fix links that point at an old target so they point at a new one. Dry-run by default: "
        "lists each file and line that would change; applying needs confirmation.",
        input_model=RewriteLinksIn,
        output_model=RewriteLinksOut,
        handler=rewrite_links,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        confirm="conditional",
        confirm_when=confirm_rewrite,
        precheck=precheck_rewrite,
        idempotent=False,
    ),
)
