"""Shapes and helpers shared by the graph tools, the moves (notes) and rename_tag (properties).

`NoteItem` is the `path`/`title`/`obsidian_url` triple every file-based result item carries;
`FileChangeItem` is one note a write would change (or changed), with each line before and
after, used by every dry-run preview; `LineText` reads linking lines from disk once per file;
`complete_index` holds a rewrite back until the vault's first index is complete;
`apply_journaled` and `edits_preview` are how a vault-wide edit (rewrite_links, rename_tag,
replace_text) is applied and put to a human.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from service.errors import ECHO_DETAIL_CHARS, IndexUnavailable, cut_middle
from service.graph.linkpath import base_name, strip_md
from service.graph.moves import FileEdit, MovePlan, apply_plan, refuse_read_only_edits
from service.graph.rewrite import LineChange, LineChanges
from service.indexer.fresh import applied_up_to
from service.markdown import line_ends
from service.markdown.line_diff import changed_runs
from service.markdown.parse import note_title
from service.obs.sessions import caller_hash
from service.plans.recovery import journaled
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.vault.commit import Steps

# How long a link or tag rewrite waits for the first index of a vault (10k notes take ~7 s).
INDEX_WAIT_S = 30.0


async def complete_index(ctx: ToolContext, within: float | None = None) -> None:
    """Return once the vault's first index is complete and holds every write acknowledged so far,
    waiting for them (bounded).

    Rewrites find the notes to change through the index (who links to a note, who carries a
    tag): planned on a partial index, a move would leave links in notes not indexed yet
    pointing at nothing. Planned before the index update of a move another caller just made (its
    write acknowledged, its update queued: read-your-writes waits only for the caller's own), a
    rename looked for a linking note under the path it had just left and left its link to the old
    name, broken (K2 s95). Past the bound, or when the index failed: `index_unavailable`
    (retryable)."""
    from service.indexer.runner import indexer_of

    indexer = indexer_of(ctx.vault)
    if indexer is None:
        return
    if indexer.ready:
        await applied_up_to(indexer, indexer.queued_seq, INDEX_WAIT_S if within is None else within)
        return
    if indexer.state != "failed":
        with contextlib.suppress(TimeoutError):
            await indexer.wait_ready(INDEX_WAIT_S if within is None else within)
        if indexer.ready:
            await applied_up_to(indexer, indexer.queued_seq, INDEX_WAIT_S if within is None else within)
            return
    raise IndexUnavailable(
        f"the index of vault {ctx.vault.id!r} is not complete yet ({indexer.state})",
        details={"vault": ctx.vault.id, "state": indexer.state, "backlog": indexer.backlog},
        hint="Links and tags are found through the index; retry when index_status reports ready.",
    )


class NoteItem(BaseModel):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL that opens the note in Obsidian.")


def note_item(ctx: ToolContext, path: str, title: str | None = None) -> dict[str, Any]:
    """`title`: the indexed title; a file the index gives none (an attachment) is titled by the
    one rule, Obsidian's basename (`note_title`: 'img/photo.png' is 'photo')."""
    return {"path": path, "title": title or note_title(path), "obsidian_url": ctx.vault.url(path)}


def target_note(path: str | None, title: str | None, raw: str, source: str) -> tuple[str, str]:
    """(path, title) for an outlink target; an unresolved one gets the path Obsidian would create."""
    if path is not None:
        return path, title or note_title(path)
    name = raw or source
    shown = name if "." in base_name(name) else f"{name}.md"
    return shown.lstrip("/"), strip_md(base_name(shown))


LINE_WINDOW = 120  # characters kept either side of a link in a longer linking line
LINK_ECHO_CHARS = ECHO_DETAIL_CHARS  # a link's target, subpath or alias echoed longer is cut in the middle
LINE_TEXT_CHARS = 2 * LINE_WINDOW + LINK_ECHO_CHARS  # the window around a link with a cut-length target
CUT_RULE = (
    f"longer than {LINK_ECHO_CHARS:,} characters: its first and last {LINK_ECHO_CHARS // 2} kept, "
    "'…(N characters cut)…' between"
)
LINE_TEXT_DESCRIPTION = (
    f"That line's text (a long line: up to {LINE_WINDOW} characters either side of the link, '…' where cut; "
    f"a window longer than {LINE_TEXT_CHARS:,} characters keeps its first and last {LINE_TEXT_CHARS // 2}, "
    "'…(N characters cut)…' between)."
)


def echoed(value: str | None) -> str | None:
    """A link's target, subpath or alias as written, cut in the middle past `LINK_ECHO_CHARS`: a note
    holding `[[T#` and 20,000 characters would otherwise make one 20,000-character item."""
    return value if value is None else cut_middle(value, LINK_ECHO_CHARS)


def around(line: str, target: str) -> str:
    """`line`, or of a line longer than the link plus a window either side, the part around the
    link to `target` (its first `[[target`, else `target`, else the line's start), '…' where cut:
    a one-line list of 20,000 property links would otherwise repeat the whole line in every item."""
    if len(line) <= 2 * LINE_WINDOW + len(target) + 4:
        return line
    at = line.find("[[" + target) if target else -1
    if at < 0:
        at = max(line.find(target), 0) if target else 0
    start, end = max(at - LINE_WINDOW, 0), min(at + len(target) + 4 + LINE_WINDOW, len(line))
    return ("…" if start else "") + line[start:end] + ("…" if end < len(line) else "")


class LineText:
    """Text of line N of a note, read from disk once per note ('' when gone); with `target`, a
    long line is cut to the window around that link (`around`)."""

    def __init__(self, ctx: ToolContext) -> None:
        self._ctx = ctx
        self._cache: dict[str, list[str]] = {}

    def get(self, path: str, line: int, target: str | None = None) -> str:
        lines = self._cache.get(path)
        if lines is None:
            try:
                note = self._ctx.vault.files.read(self._ctx.vault.paths.resolve(path))
                lines = line_ends.lf(note.content).split("\n")  # a CR alone ends a line, as the index counts
            except Exception:  # noqa: BLE001 - a vanished or unreadable note just has no context
                lines = []
            self._cache[path] = lines
        text = lines[line].rstrip("\r") if 0 <= line < len(lines) else ""
        return text if target is None else cut_middle(around(text, target), LINE_TEXT_CHARS)


class LineChangeItem(BaseModel):
    line: int = Field(description="1-based line number (in the file before the change).")
    before: str = Field(description="The line now.")
    after: str = Field(description="The line after the change.")


ITEM_SHARE = 4  # one file's listed line changes take at most this share of the response budget


def kept_changes(ctx: ToolContext) -> int:
    """How much of a file's changed lines a vault-wide edit keeps to list (`LineChanges`): what
    `change_item` lists of them, a share of the response budget; the rest are only counted."""
    return ctx.services.settings.governor.max_response_bytes // ITEM_SHARE


class FileChangeItem(NoteItem):
    new_path: str | None = Field(default=None, description="Where the note ends up when it is moved too.")
    changes: list[LineChangeItem] = Field(
        description="Each line that changes, in order: a file whose changed lines would take more than a quarter "
        "of the response budget lists the first ones that fit it (the rest: changes_not_listed); a line longer than "
        "a sixteenth of the budget is cut in the middle."
    )
    changes_not_listed: int = Field(
        default=0,
        exclude_if=lambda n: n == 0,  # absent from the answer when every line is listed
        description="Changed lines of this file left out of `changes` (they change all the same); absent when "
        "every one is listed.",
    )


def change_item(
    ctx: ToolContext,
    path: str,
    changes: Collection[LineChange],
    *,
    new_path: str | None = None,
    title: str | None = None,
) -> FileChangeItem:
    """A file's changes as listed: every one while they fit `1/ITEM_SHARE` of the response budget,
    so that a page of one file always fits it (a note of 50 MB whose 2.5 million lines each link
    to a moved note was a preview of 230 MB: overflow at every `limit`). `changes` may keep only
    the first ones (`LineChanges` of `kept_changes`): those are all it lists; `len` counts all."""
    budget = kept_changes(ctx)
    listed: list[LineChangeItem] = []
    used = 0
    for c in changes:
        before, after = cut_middle(c.before, budget // 4), cut_middle(c.after, budget // 4)
        used += len(before.encode()) + len(after.encode()) + 40  # the item's keys, the line number
        if used > budget and listed:
            break
        listed.append(LineChangeItem(line=c.line, before=before, after=after))
    return FileChangeItem(
        **note_item(ctx, path, title),
        new_path=new_path if new_path != path else None,
        changes=listed,
        changes_not_listed=len(changes) - len(listed),
    )


def edit_items(ctx: ToolContext, edits: list[FileEdit]) -> list[FileChangeItem]:
    """The planned edits the caller may read, as change items."""
    return [change_item(ctx, e.path, e.changes, new_path=e.new_path) for e in edits if ctx.can_read(e.path)]


def preview(lines: list[str], items: list[FileChangeItem], files: Iterable[str], limit: int = 20) -> ChangePreview:
    """A confirmation prompt: the head `lines`, each changed line of the first `limit` notes, and
    `files` — every file the call changes, all of them (`ChangePreview`)."""
    out = list(lines)
    for item in items[:limit]:
        out.append(f"- {item.path}" + (f" -> {item.new_path}" if item.new_path else ""))
        for c in item.changes[:5]:
            out.append(f"    {c.line}: {c.before!r} -> {c.after!r}")
    if len(items) > limit:
        out.append(f"(line changes of {limit} of the {len(items)} notes shown; every file is listed below)")
    return ChangePreview.of("\n".join(out), files)


async def apply_journaled(ctx: ToolContext, plan: MovePlan, steps: Steps | None, goal: str) -> None:
    """A vault-wide edit's plan applied as one change, all or nothing, kept in the plan journal
    (a crash mid-way is rolled back at the next start: `service.plans.recovery`)."""
    async with journaled(ctx.services.plans.journal, ctx.vault.id, caller_hash(ctx.principal.subject), goal):
        await apply_plan(ctx.vault, plan, steps)


async def edits_preview(ctx: ToolContext, plan: MovePlan, head: str) -> ChangePreview:
    """The confirmation of a vault-wide edit: refused first when a note it changes is read-only
    (no one is asked to approve what cannot be done), then `preview` of its edits."""
    await asyncio.to_thread(refuse_read_only_edits, ctx.vault, plan)
    return preview([head], edit_items(ctx, plan.edits), {e.path for e in plan.edits})


def diff_lines(
    before: str, after: str, within: Sequence[tuple[int, int, int, int]] = (), keep: int | None = None
) -> LineChanges:
    """Changed lines between two versions of a note (1-based numbers in `before`): each changed
    run of lines (`service.markdown.line_diff`, bounded work for any texts) listed line by line,
    its lines paired by position; a line added past the run's old lines is listed with `before`
    empty (numbered as the line it goes before, or the run's last line), a line removed with
    `after` empty. `within`: the runs of lines an edit knows it wrote (`changed_runs`). `keep`: how
    many are kept, not only counted (`LineChanges`; a vault-wide edit's `kept_changes`). Lines are
    those of the texts' LF form (`line_ends.lf`: a CR alone ends a line, as the index and Obsidian
    count them), so a CR-only note's change is its changed lines, not the whole note as line 1."""
    old, new = line_ends.lf(before).split("\n"), line_ends.lf(after).split("\n")
    return LineChanges.paired(old, new, changed_runs(old, new, within), keep)
