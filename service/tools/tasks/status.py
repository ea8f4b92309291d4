"""tasks domain, checkbox tasks: set_task_status.

Edits one task line of one note through `VaultFiles.modify` (atomic, under the path lock),
guarded by the note's etag or the task's text: a line that is not a task (code blocks hold
none), or a task that moved or changed, is refused with nothing written. What the new status does
to the line — done and cancelled dates, the next occurrence of a recurring task, inserted above
it — is `completion.py`. Touches: vault files; `.obsidian/plugins/obsidian-tasks-plugin/data.json`
(custom statuses, read-only).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from datetime import date
from typing import Any

from pydantic import Field, field_validator, model_validator

from service.dates import iso_day
from service.errors import Conflict, ValidationFailed
from service.markdown import tasks as tk
from service.markdown.parse import note_title, parse_note
from service.markdown.sections import keeping_crlf
from service.tools.context import ToolContext
from service.tools.graph_common import LineChangeItem, diff_lines
from service.tools.models import ToolInput, ToolOutput
from service.tools.spec import ToolSpec
from service.tools.tasks.completion import changed_line, deleted_on_completion, status_table_of, tasks_settings_of
from service.vault import offloop
from service.vault.paths import VaultPath

ISO_DATE = r"^\d{4}-\d{2}-\d{2}$"
# The status types list_tasks answers with, as the Tasks plugin's core status characters.
STATUS_TYPES = {"todo": " ", "in_progress": "/", "done": "x", "cancelled": "-"}


class SetTaskStatusIn(ToolInput):
    path: str = Field(description="The note holding the task (path or wikilink name).")
    line: int = Field(ge=1, description="1-based line of the task, as list_tasks gives it.")
    status: str = Field(
        min_length=1,
        max_length=40,  # a longer word is refused by `_one_mark` too, naming the four
        description="New status: a character ('x' done, ' ' to do, '/' in progress, '-' cancelled, or a custom one) "
        "or the status type list_tasks gives (todo, in_progress, on_hold, done, cancelled; any case): the vault's "
        "status of that type (its core character when the Tasks settings keep it, else their first of the type).",
    )
    expected_etag: str | None = Field(
        default=None, description="The note's etag you read; a changed note is `conflict`."
    )
    expected_text: str | None = Field(
        default=None,
        description="The task text as list_tasks gave it; a line that moved or changed is `conflict`. "
        "Give this or expected_etag.",
    )
    date: str | None = Field(
        default=None, pattern=ISO_DATE, description="Date stamped as the done/cancelled date (default: today)."
    )

    @field_validator("status")
    @classmethod
    def _one_mark(cls, status: str) -> str:
        if len(status) > 1:  # 'done', also as the plugin names it ('Done', 'In Progress')
            status = status.strip().lower().replace(" ", "_")
            if status != "on_hold" and status not in STATUS_TYPES:
                raise ValueError(
                    f"{status[:20]!r} is no task status: give one character or one of "
                    f"{', '.join(STATUS_TYPES)}, on_hold"
                )
            return status  # a type: the vault's character for it (`_status_char`)
        # What can stand between a checkbox's brackets: ' ' or a visible character other than a
        # bracket ('\n' split the task line in two, ']' wrote '- []] b', which is no checkbox).
        if status != " " and (status in "[]" or unicodedata.category(status)[0] in "CZ"):
            raise ValueError(f"{status!r} cannot be a task's status: give ' ' or one visible character other than [ ]")
        return status

    @model_validator(mode="after")
    def _guarded(self) -> SetTaskStatusIn:
        if self.expected_etag is None and self.expected_text is None:
            raise ValueError("give expected_etag or expected_text, so a moved or edited task is not changed")
        return self


class SetTaskStatusOut(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL.")
    etag: str = Field(description="The note's new etag.")
    line: int = Field(
        description="1-based line of the changed task now (one lower when a next occurrence went above; where it "
        "was when it was deleted)."
    )
    text: str = Field(description="The changed task's text.")
    status_type: str = Field(description="Type of the new status.")
    next_occurrence: str | None = Field(
        default=None,
        description="The recurring task's next occurrence (its text): inserted above it, or below when the Tasks "
        "settings say recurrenceOnNextLine. A cancelled task has none, as in the Tasks plugin.",
    )
    deleted: bool = Field(
        default=False, description="True when the task was marked '🏁 delete' and removed on completion."
    )
    changes: list[LineChangeItem] = Field(description="Each line that changed.")


def _task_at(text: str, rel: str, index: int, args: SetTaskStatusIn) -> tk.TaskLine:
    lines = text.split("\n")
    parsed = {t.line: t for t in parse_note(rel, text).tasks}
    here = parsed.get(index) if index < len(lines) else None
    expected = args.expected_text.strip() if args.expected_text is not None else None
    moved = next((t.line + 1 for t in parsed.values() if t.text == expected), None) if expected else None
    # A task named by its text that is now on another line (lines added above it: a property
    # set, a heading written) moved: `conflict` pointing there, whatever its old line holds now.
    # Named by its text, a line of the note that holds neither a task nor that text was changed too
    # (the task moved and was edited: its text is nowhere); a line holding the text but no task (in a
    # code block) or past the note's end is `not_a_task`.
    other_task = here is not None and here.text != expected
    edited = here is None and expected is not None and index < len(lines) and expected not in lines[index]
    if expected is not None and (other_task or (here is None and moved is not None) or edited):
        what = "the task on line {} of {!r} is not the one expected" if here else "line {} of {!r} holds no task now"
        raise Conflict(
            what.format(index + 1, rel) + (f"; the expected one is on line {moved}" if moved is not None else ""),
            details={"path": rel, "line": index + 1, "reason": "task_changed", "now_at_line": moved},
            hint="Read the tasks again (list_tasks) and retry with the current line.",
        )
    if here is None:
        raise ValidationFailed(
            f"line {index + 1} of {rel!r} is not a task",
            details={"field": "line", "reason": "not_a_task", "path": rel, "line": index + 1},
            hint="list_tasks gives each task's line; tasks in code blocks are not tasks.",
        )
    task = tk.task_line(lines[index].rstrip("\r"))
    assert task is not None  # the parser found a task here
    return task


def _status_char(status: str, table: dict[str, tuple[tk.StatusType, str]]) -> str:
    """The character to write: `status` itself, or for a status type the vault's status of that
    type (the Tasks plugin settings register): its core character when they give it that type
    (`/` in progress), else their first status of the type. Settings that deleted every status of
    the type (the default `/` or `-` gone) have none to write: `validation_error`, nothing written."""
    if len(status) == 1:
        return status
    core = STATUS_TYPES.get(status)
    if core is not None and table.get(core, ("todo", ""))[0] == status:
        return core
    found = next((char for char, (kind, _) in table.items() if kind == status), None)
    if found is None:
        kind = status.upper()
        raise ValidationFailed(
            f"the vault's Tasks plugin settings have no status of type {kind}",
            details={"field": "status", "reason": "no_such_status", "status": status},
            hint=f"Give the status character, or add a {kind} status in the Tasks plugin settings.",
        )
    return found


def task_edit(ctx: ToolContext, args: SetTaskStatusIn, rel: str, holder: dict[str, Any]) -> Callable[[str], str]:
    """set_task_status's edit of the note's LF text; `holder` gets what the answer reports (a plan's
    check foresees the note's text with it too)."""
    table = holder["table"] = status_table_of(ctx)
    status = _status_char(args.status, table)
    settings = tasks_settings_of(ctx)
    today = iso_day(args.date) if args.date else date.today()

    def change(text: str) -> str:
        index = args.line - 1
        task = _task_at(text, rel, index, args)
        new, nxt = changed_line(task, status, table, today, settings)
        lines = text.split("\n")
        ending = "\r" if lines[index].endswith("\r") else ""
        deleted = deleted_on_completion(task, status, table, settings)
        block = [] if deleted else [str(new) + ending]
        if nxt is not None:
            block.insert(len(block) if settings.next_below else 0, str(nxt) + ending)
        lines[index : index + 1] = block
        after = "\n".join(lines)
        at = index + 1 + (1 if nxt is not None and not settings.next_below and len(block) == 2 else 0)
        holder.update(before=text, after=after, task=new, next=nxt, line=at, deleted=deleted)
        return after

    return change


async def set_task_status(ctx: ToolContext, args: SetTaskStatusIn) -> SetTaskStatusOut:
    vp: VaultPath = (await ctx.find_note(args.path, "write", section="reject")).vp
    ctx.resolve(vp.rel, "read")  # the answer shows the task's text
    holder: dict[str, Any] = {}
    change = task_edit(ctx, args, vp.rel, holder)
    table = holder["table"]

    # on the note's LF form (a CR alone ends a line, as the index reads it), written with its line ends
    result = await ctx.vault.files.modify(vp, keeping_crlf(change), expected_etag=args.expected_etag)
    task: tk.TaskLine = holder["task"]
    diff = await offloop.sized(len(holder["after"]), diff_lines, holder["before"], holder["after"])
    return SetTaskStatusOut(
        path=vp.rel,
        title=note_title(vp.rel),
        obsidian_url=ctx.vault.url(vp.rel),
        etag=result.etag,
        line=holder["line"],
        text=task.body,
        status_type=tk.status_type(table, task.status),
        next_occurrence=holder["next"].body if holder["next"] is not None else None,
        deleted=holder["deleted"],
        changes=[LineChangeItem(line=c.line, before=c.before, after=c.after) for c in diff],
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="set_task_status",
        domain="tasks",
        title="Set a task's status",
        description="Change one task's status in place (note + line, guarded by the note's etag or the task's "
        "text). Done stamps the done date in the task's own format; a recurring task (🔁 every …) gets its next "
        "occurrence inserted above, as the Tasks plugin does.",
        input_model=SetTaskStatusIn,
        output_model=SetTaskStatusOut,
        handler=set_task_status,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
    ),
)
