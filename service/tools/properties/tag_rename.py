"""properties domain, vault-wide: rename a tag in every note that carries it.

Tools: rename_tag.
Touches: index tables `note_tags`/`notes` (the notes carrying the tag); vault files through the
journaled multi-file commit (`apply_journaled`), under the vault's move lock. The plan (reading
and renaming every note holding the tag) runs under `[limits] max_rewrite_seconds`
(`service.graph.plan_clock`), its dry run and confirmation preview alike.
A note's frontmatter tags are renamed by line when they are a plain `- tag` list (`tag_lines`),
otherwise by a YAML round trip (`service.markdown.yaml_edit`); inline #tags in the body too.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from pydantic import Field

from service.errors import NoteNotFound, ValidationFailed
from service.graph.moves import FileEdit, MovePlan, move_lock, scan
from service.graph.plan_clock import TAGS, PlanClock
from service.graph.queries import GraphQueries
from service.markdown import frontmatter as fm
from service.markdown import yaml_edit
from service.markdown.tag_edit import check_tag, edit_inline_tags, renamed
from service.policy.confirmations import ChangePreview
from service.tools.change_pages import ChangeListIn, start_of, window
from service.tools.context import ToolContext
from service.tools.graph_common import (
    FileChangeItem,
    apply_journaled,
    change_item,
    complete_index,
    diff_lines,
    edits_preview,
    kept_changes,
)
from service.tools.models import ToolOutput
from service.tools.properties import tag_lines
from service.tools.spec import ToolSpec
from service.vault.commit import Steps

if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedMap


class RenameTagIn(ChangeListIn):
    old: str = Field(description="Tag to rename ('#' optional); nested tags under it are renamed too.")
    new: str = Field(description="New tag name ('#' optional).")
    dry_run: bool = Field(default=True, description="Default true: only list each file and line that would change.")


class RenameTagOut(ToolOutput):
    dry_run: bool = Field(description="True when nothing was changed.")
    items: list[FileChangeItem] = Field(
        description="Notes that change, with each line before and after (this page: at most `limit`)."
    )
    files_changed: int = Field(description="Number of notes whose text changes (all of them).")
    lines_changed: int = Field(description="Number of changed lines (all of them).")
    truncated: bool = Field(description="True when `items` lists only some of the changes.")
    next_cursor: str | None = Field(default=None, description="Dry run: cursor of the next preview page.")


def tag_renamed(text: str, rel: str, old: str, new: str) -> str:
    def mutate(data: CommentedMap) -> None:
        key, current = yaml_edit.tag_list(data)
        if key is None:
            return
        value = data[key]
        if isinstance(value, list):
            # In place, so comments on list items survive.
            for i, item in enumerate(value):
                name = renamed(yaml_edit.norm_tag(str(item)), old, new)
                if name is not None:
                    value[i] = name
        else:
            names = [renamed(t, old, new) or t for t in current]
            if names != current:
                yaml_edit.set_tags(data, list(dict.fromkeys(names)))

    # Only a frontmatter that holds the tag's text (or an escape that may spell it) is read as
    # YAML: a round trip costs ~10 ms a note, and a tag found in 2,000 notes' bodies took 19 s.
    raw = fm.fences(text).raw
    if raw is not None and (old.lower() in raw.lower() or "\\" in raw):
        fast = tag_lines.renamed_items(text, lambda t: renamed(t, old, new))  # `- tag` items: by line
        if fast is not None:
            text = fast
        else:
            with contextlib.suppress(ValidationFailed):  # a note with broken YAML still gets its inline tags renamed
                text = yaml_edit.edit_frontmatter(text, rel, mutate)
    return edit_inline_tags(text, lambda t: renamed(t, old, new))


def tag_pair(args: RenameTagIn) -> tuple[str, str]:
    old, new = check_tag(args.old, "old"), check_tag(args.new, "new")
    if old.lower() == new.lower() and old == new:
        raise ValidationFailed("old and new are the same tag", details={"field": "new"})
    return old, new


async def precheck_rename_tag(ctx: ToolContext, args: RenameTagIn) -> None:
    """Invalid or identical tags, or a cursor on an applying call, fail before anyone is asked."""
    start_of(args, args.dry_run)
    tag_pair(args)


async def _rename_plan(ctx: ToolContext, args: RenameTagIn, steps: Steps | None = None) -> MovePlan:
    """Every note the caller may read that holds the tag, read and renamed in a worker thread a
    batch at a time (`moves.scan`) under the call's `[limits] max_rewrite_seconds` (`PlanClock`):
    past it `compute_budget_exceeded` before anything is written. A note the caller may not read
    is neither read nor counted (the refusal's or the progress's count would tell it exists)."""
    clock = PlanClock(ctx.vault.limits, work=TAGS)
    old, new = tag_pair(args)
    await complete_index(ctx)  # the notes carrying the tag come from the index
    tagged = await GraphQueries(ctx.services.db).notes_with_tag(ctx.vault.id, old)
    readable = [path for path in tagged if ctx.can_read(path)]
    keep = kept_changes(ctx)  # a note's changed lines listed, the others counted

    def edit_of(path: str) -> FileEdit | None:
        try:
            note = ctx.vault.files.read(ctx.resolve(path, "read"))
        except NoteNotFound:
            return None
        text = tag_renamed(note.content, path, old, new)
        if text == note.content:
            return None
        ctx.resolve(path, "write")
        changes = diff_lines(note.content, text, keep=keep)
        return FileEdit(path, path, note.etag, note.content, text, changes, note.encoding)

    plan = MovePlan(moves={})
    await scan(plan, readable, edit_of, steps=steps, clock=clock)
    return plan


async def rename_tag(ctx: ToolContext, args: RenameTagIn) -> RenameTagOut:
    start_of(args, args.dry_run)  # a bad cursor fails before anything changes
    steps = ctx.steps("rename_tag")
    async with move_lock(ctx.vault):
        plan = await _rename_plan(ctx, args, steps)
        if not args.dry_run:
            await apply_journaled(ctx, plan, steps, f"rename_tag of {args.old!r} to {args.new!r}")
    (edits,), cursor, truncated = window(args, args.dry_run, plan.edits)
    items = [change_item(ctx, e.path, e.changes) for e in edits if ctx.can_read(e.path)]
    return RenameTagOut(
        dry_run=args.dry_run,
        items=items,
        files_changed=len(plan.edits),
        lines_changed=sum(len(e.changes) for e in plan.edits),
        truncated=truncated,
        next_cursor=cursor,
    )


async def confirm_rename_tag(ctx: ToolContext, args: RenameTagIn) -> ChangePreview | None:
    if args.dry_run:
        return None
    plan = await _rename_plan(ctx, args)
    return await edits_preview(ctx, plan, f"Rename tag #{args.old} to #{args.new} in {len(plan.edits)} notes:")


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="rename_tag",
        domain="properties",
        title="Rename a tag",
        description="Rename a tag in every note, nested tags too (proj/alpha -> new/alpha), in frontmatter and "
        "inline. Dry-run by default: lists each file and line; applying needs confirmation.",
        input_model=RenameTagIn,
        output_model=RenameTagOut,
        handler=rename_tag,
        scopes=("write:vault",),
        scope_class="bulk",
        mutating=True,
        confirm="conditional",
        confirm_when=confirm_rename_tag,
        precheck=precheck_rename_tag,
        idempotent=False,
    ),
)
