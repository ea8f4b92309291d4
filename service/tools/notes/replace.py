"""notes domain, find and replace: replace_text.

Replaces a text (or a regular expression's matches) in the body of one note, the notes under a
folder, or every note, the way rename_tag rewrites a tag: a dry run by default that lists each
changed line, then one all-or-nothing change that needs confirmation (`scope_class` bulk), kept
in the plan journal so a crash mid-way is rolled back at the next start.
- Only the body changes: the frontmatter is properties, edited with set_properties and the tag
  tools (a frontmatter block is found by its fences, its YAML never read here). The pattern runs
  on the note's lines joined by LF (`$` ends a line, `\n` matches a line end, in CRLF notes too)
  and each line keeps its own end (`service.markdown.line_ends`).
- Notes are found through the index, its canvases left out (JSON, no notes; path= refuses one):
  the trigram index narrows a pattern with a literal of three characters or more, as
  search_regex does, and each is checked again on disk: what is replaced is the file's text as
  read, written back only over the etag it was read at.
- Patterns run on the `regex` package under the `[search]` regex budget for the whole call, in a
  worker thread, and the whole plan (finding, reading and replacing in the notes) under `[limits]
  max_rewrite_seconds` (`service.graph.plan_clock`), its dry run and preview alike; `whole_word`
  keeps matches not touching a letter, digit or `_` on either side.
- At most `MAX_FILES` notes with a match in one call (the texts of every changed note are held
  until the last is written): more is a validation error that says to narrow it by folder. The
  notes may grow by at most `MAX_GROWTH` characters together, counted match by match, so a short
  pattern with a long replacement (100,000 characters for each 'x') is refused before its text
  is built, not after gigabytes of it.
Touches: vault files (read; written on apply), index tables `notes`, `note_text`, `fts_trigram`
(read, to find the notes).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import Field, model_validator

from service.errors import ComputeBudgetExceeded, NoteNotFound, QuerySyntaxError, ValidationFailed
from service.graph.moves import FileEdit, MovePlan, move_lock
from service.graph.plan_clock import TEXT, PlanClock
from service.graph.rewrite import LineChanges
from service.markdown import frontmatter as fm
from service.markdown import line_ends
from service.markdown.line_diff import iter_changed_runs
from service.markdown.lines_view import Lines, Runs
from service.obsidian.canvas import is_canvas_path
from service.policy.confirmations import ChangePreview
from service.retrieval import regex as rx
from service.tools.change_pages import ChangeListIn, start_of, window
from service.tools.context import ToolContext
from service.tools.graph_common import (
    FileChangeItem,
    apply_journaled,
    change_item,
    complete_index,
    edits_preview,
    kept_changes,
)
from service.tools.models import NOTE_ADDRESS, ToolOutput
from service.tools.search_common import FOLDER_FIELD, FolderArg, readable, scope
from service.tools.spec import ToolSpec

if TYPE_CHECKING:
    import regex

MAX_FILES = 2_000
MAX_REPLACE = 100_000  # characters of replacement text
MAX_GROWTH = 10_000_000  # characters the changed notes may gain in one call, together


class ReplaceTextIn(ChangeListIn):
    find: str = Field(
        min_length=1, max_length=rx.MAX_PATTERN, description="Text to find (a regular expression with regex=true)."
    )
    replace: str = Field(
        max_length=MAX_REPLACE,
        description="What each match becomes ('' deletes it); with regex=true, \\1 or \\g<name> put a group back.",
    )
    path: str | None = Field(default=None, description="Only this note. " + NOTE_ADDRESS)
    folder: FolderArg = FOLDER_FIELD
    regex: bool = Field(default=False, description="find is a regular expression (Python `regex` syntax).")
    ignore_case: bool = Field(default=False, description="Match in any letter case.")
    whole_word: bool = Field(default=False, description="Only matches with no letter, digit or _ right beside them.")
    dry_run: bool = Field(default=True, description="Default true: only list each file and line that would change.")

    @model_validator(mode="after")
    def _one_scope(self) -> ReplaceTextIn:
        if self.path is not None and self.folder is not None:
            raise ValueError("give path (one note) or folder, not both")
        return self


class ReplaceTextOut(ToolOutput):
    dry_run: bool = Field(description="True when nothing was changed.")
    items: list[FileChangeItem] = Field(
        description="Notes that change, with each line before and after (this page: at most `limit`)."
    )
    files_changed: int = Field(description="Number of notes whose text changes (all of them).")
    lines_changed: int = Field(description="Number of changed lines (all of them).")
    replacements: int = Field(description="Number of matches replaced (all of them).")
    truncated: bool = Field(description="True when `items` lists only some of the changes.")
    next_cursor: str | None = Field(default=None, description="Dry run: cursor of the next preview page.")


@dataclass
class _Plan(MovePlan):
    """The edits, and how many matches they replace."""

    replacements: int = 0


def _compiled(args: ReplaceTextIn) -> tuple[regex.Pattern[str], list[str]]:
    """The pattern to run and the literals every match holds (for the trigram prefilter)."""
    import regex

    source = args.find if args.regex else regex.escape(args.find)
    alone = rx.compile_pattern(source, ignore_case=args.ignore_case, multiline=True)  # its errors, with hints
    literals = rx.required_literals(source, ignore_case=args.ignore_case)
    if args.whole_word:  # a verbose pattern may end in a comment: a line break ends it before the ')'
        end = "\n" if alone.flags & regex.VERBOSE else ""
        source = rf"(?<![\w])(?:{source}{end})(?![\w])"
    return rx.compile_pattern(source, ignore_case=args.ignore_case, multiline=True), literals


class _Growth:
    """Each match's replacement (a `sub` callable), counting what the notes gain past `MAX_GROWTH`."""

    def __init__(self, args: ReplaceTextIn) -> None:
        self.template = args.replace
        self.expand = args.regex and "\\" in args.replace  # no backslash: the text as written
        self.grown = 0

    def __call__(self, m: Any) -> str:
        text: str = m.expand(self.template) if self.expand else self.template
        self.grown += len(text) - (m.end() - m.start())
        if self.grown > MAX_GROWTH:
            raise ValidationFailed(
                f"the notes would grow by more than {MAX_GROWTH} characters in one call",
                details={"max_growth_chars": MAX_GROWTH},
                hint="Narrow it with folder or path, or use a shorter replacement.",
            )
        return text


async def precheck_replace_text(ctx: ToolContext, args: ReplaceTextIn) -> None:
    """A bad pattern, or a cursor on an applying call, fails before anyone is asked."""
    start_of(args, args.dry_run)
    _compiled(args)


async def _candidates(
    ctx: ToolContext, args: ReplaceTextIn, compiled: regex.Pattern[str], literals: list[str]
) -> list[str]:
    """The notes whose indexed body has a match (path order), or the one note named."""
    if args.path is not None:
        return [(await ctx.find_note(args.path, "write")).vp.rel]
    await complete_index(ctx)
    folders = scope(ctx, args.folder)
    readable_note = readable(ctx)

    def can_read(rel: str) -> bool:  # a canvas is in the index for its words, but it is JSON, no note
        return not is_canvas_path(rel) and readable_note(rel)

    cfg = ctx.services.settings.search

    def query(conn: Any) -> tuple[list[rx.RegexHit], bool, bool]:
        return rx.search(
            conn,
            ctx.vault.id,
            compiled,
            literals,
            folders,
            can_read,
            want=MAX_FILES,
            budget_s=cfg.regex_max_budget_ms / 1000,
            max_lines=1,
        )

    hits, more, _ = await ctx.services.db.run_read(query)
    if more:
        raise _too_many()
    return [h.path for h in hits]


def _too_many() -> ValidationFailed:
    return ValidationFailed(
        f"more than {MAX_FILES} notes would change in one call",
        details={"max_files": MAX_FILES},
        hint="Narrow it with folder (one call per folder), or path for one note.",
    )


class _Written:
    """Each match's replacement (`_Growth`), noting the runs of lines the matches of one note
    wrote, `(i1, i2, j1, j2)` as `changed_runs` takes them: a match's lines before and after,
    runs that share a line joined. The preview lists those lines, paired as they were written,
    where comparing the whole texts pairs repeated lines (the blank ones) by their count alone."""

    def __init__(self, replacer: _Growth, lf: str, start: int) -> None:
        self.replacer, self.lf, self.start = replacer, lf, start
        self.at, self.line, self.shift = start, lf.count("\n", 0, start), 0
        self.runs = Runs()  # four integers a run, not a tuple of them (675,000 runs: ~21 MB, not ~125)

    def __call__(self, m: Any) -> str:
        text = self.replacer(m)
        begin, end = self.start + m.start(), self.start + m.end()
        self.line += self.lf.count("\n", self.at, begin)
        self.at = begin
        first, last = self.line, self.line + self.lf.count("\n", begin, end)
        shift = self.shift + text.count("\n") - (last - first)  # lines gained up to this match's end
        if self.runs and first < self.runs[-1][1]:  # on the last line of the run before: one run
            i1, _, j1, _ = self.runs.pop()
        else:
            i1, j1 = first, first + self.shift
        self.runs.append((i1, last + 1, j1, last + 1 + shift))
        self.shift = shift
        return text


def _replaced(
    rel: str, text: str, compiled: regex.Pattern[str], replacer: _Growth, deadline: float, budget_s: float
) -> tuple[str, int, Sequence[tuple[int, int, int, int]]]:
    """The note with its body's matches replaced, how many, and the runs of lines they wrote
    (`_Written`): the pattern runs on the note's lines joined by LF (`$` and `\\n` mean what the
    note shows) and each line keeps its own end. A note whose frontmatter block would end
    elsewhere (a note without one given one, '---' at its start; text joined to its closing
    '---') is refused: only the body changes."""
    import regex  # loaded already: the pattern is compiled

    counted = [0]
    written: list[_Written] = []

    def swap(lf: str) -> str:
        start = fm.fences(lf).body_start
        written.append(_Written(replacer, lf, start))
        try:
            body, counted[0] = compiled.subn(written[-1], lf[start:], timeout=max(deadline - time.monotonic(), 0.001))
        except TimeoutError:
            raise ComputeBudgetExceeded(
                "replace_text exceeded its time budget",
                details={"budget_ms": int(budget_s * 1000)},
                hint="Narrow it with folder or path, or simplify the pattern.",
            ) from None
        except (IndexError, ValueError, regex.error) as exc:  # a group the pattern does not have, a bad escape
            raise QuerySyntaxError(
                "invalid replacement",
                details={"field": "replace", "reason": str(exc)},
                hint="Refer only to the pattern's groups (\\1, \\g<name>); write a backslash as \\\\.",
            ) from None
        if counted[0] and fm.fences(lf[:start] + body).body_start != start:
            raise ValidationFailed(
                f"replacing in {rel!r} would change where its frontmatter ends (or make one)",
                details={"path": rel},
                hint="replace_text changes the body only: set properties with set_properties, and keep a "
                "replacement from writing a '---' block at the note's start or joining text to its closing '---'.",
            )
        return lf[:start] + body

    changed = line_ends.keeping(swap)(text)
    return changed, counted[0], written[-1].runs if written else []


def _changes(before: str, after: str, runs: Sequence[tuple[int, int, int, int]], keep: int | None) -> LineChanges:
    """`LineChanges.paired`, as `diff_lines(before, after, runs, keep)` makes them, on views of
    the two texts' lines (`service.markdown.lines_view.Lines`) one run at a time:
    a 50 MB note whose 675,000 lines each change split into ~170 MB of lines, and its runs were
    held as tuples twice (~250 MB), for an answer listing a few hundred."""
    old, new = Lines(before), Lines(after)
    return LineChanges.paired(old, new, iter_changed_runs(old, new, runs), keep)


def replaced_in(ctx: ToolContext, args: ReplaceTextIn, rel: str, text: str) -> str:
    """One note's text once replace_text ran over it (a plan's check foresees a note's text so)."""
    budget_s = ctx.services.settings.search.regex_max_budget_ms / 1000
    return _replaced(rel, text, _compiled(args)[0], _Growth(args), time.monotonic() + budget_s, budget_s)[0]


async def _plan(ctx: ToolContext, args: ReplaceTextIn) -> _Plan:
    """The edits of every note with a match the caller may read (`_candidates`), under the call's
    `[limits] max_rewrite_seconds` from here (`PlanClock`, looked at after each note read and
    replaced in): past it `compute_budget_exceeded` before anything is written."""
    clock = PlanClock(ctx.vault.limits, work=TEXT)
    compiled, literals = _compiled(args)
    paths = await _candidates(ctx, args, compiled, literals)
    files = {p: ctx.resolve(p, "read") for p in paths}
    replacer = _Growth(args)
    budget_s = ctx.services.settings.search.regex_max_budget_ms / 1000
    keep = kept_changes(ctx)  # a note's changed lines listed, the others counted

    def scan() -> _Plan:
        plan = _Plan(moves={})
        deadline = time.monotonic() + budget_s
        for examined, (rel, vp) in enumerate(files.items(), start=1):
            try:
                note = ctx.vault.files.read(vp)
            except NoteNotFound:
                continue  # gone since the index saw it
            text, count, runs = _replaced(rel, note.content, compiled, replacer, deadline, budget_s)
            clock.check(examined, len(files))
            if not count or text == note.content:
                continue
            # the lines as the note shows them: a lone CR ends one too (the runs count them so)
            changes = _changes(line_ends.lf(note.content), line_ends.lf(text), runs, keep)
            plan.edits.append(FileEdit(rel, rel, note.etag, note.content, text, changes, note.encoding))
            plan.replacements += count
        return plan

    plan = await asyncio.to_thread(scan)
    for edit in plan.edits:
        ctx.resolve(edit.path, "write")  # every note it changes may be written by the caller
    return plan


async def replace_text(ctx: ToolContext, args: ReplaceTextIn) -> ReplaceTextOut:
    start_of(args, args.dry_run)  # a bad cursor fails before anything changes
    steps = ctx.steps("replace_text")
    async with move_lock(ctx.vault):
        plan = await _plan(ctx, args)
        if not args.dry_run and plan.edits:
            await apply_journaled(ctx, plan, steps, f"replace_text of {args.find[:80]!r}")
    (edits,), cursor, truncated = window(args, args.dry_run, plan.edits)
    return ReplaceTextOut(
        dry_run=args.dry_run,
        items=[change_item(ctx, e.path, e.changes) for e in edits],
        files_changed=len(plan.edits),
        lines_changed=sum(len(e.changes) for e in plan.edits),
        replacements=plan.replacements,
        truncated=truncated,
        next_cursor=cursor,
    )


async def confirm_replace_text(ctx: ToolContext, args: ReplaceTextIn) -> ChangePreview | None:
    if args.dry_run:
        return None
    plan = await _plan(ctx, args)
    head = f"Replace {args.find[:80]!r} with {args.replace[:80]!r}: {plan.replacements} in {len(plan.edits)} notes:"
    return await edits_preview(ctx, plan, head)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="replace_text",
        domain="notes",
        title="Find and replace",
        description="Replace a text or a regular expression's matches in the body of one note (path), the notes "
        "under a folder, or every note; frontmatter is left alone. Dry-run by default: lists each file and line "
        "and the number of replacements; applying needs confirmation and is all or nothing.",
        input_model=ReplaceTextIn,
        output_model=ReplaceTextOut,
        handler=replace_text,
        scopes=("write:vault",),
        scope_class="bulk",
        mutating=True,
        confirm="conditional",
        confirm_when=confirm_replace_text,
        precheck=precheck_replace_text,
        idempotent=False,
    ),
)
