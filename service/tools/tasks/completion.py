"""What a status change does to a task line, as the Tasks plugin does it.

Done (a status of type done) stamps the done date (`✅ 2026-11-24` or `[completion:: 2026-11-24]`,
the task's own format) and leaving done removes it; cancelled stamps and un-stamps the cancelled
date the same way. Completing a recurring task also builds its next occurrence, which the caller
inserts above it: the rule (`service.dates.recurrence`) moves the reference date (due, else
scheduled, else start) to the rule's next date after it — after the completion date for
`when done` —, the other dates keep their distance to it, the done and cancelled dates, the block
id, the task id (🆔) and its dependencies (⛔) are dropped, the created date is dropped too unless
the plugin's `setCreatedDate` is on (then it is the completion day), and the status is the one the
settings give after done (a space unless the Tasks plugin settings say otherwise). A task
without dates recurs without dates.

Cancelling a recurring task makes no next occurrence: the Tasks plugin creates one only when the
new status is of type done (its `handleNewStatus`), so a cancelled occurrence ends the series there,
as in Obsidian. The plugin's settings (`.obsidian/plugins/obsidian-tasks-plugin/data.json`) are
followed: `setDoneDate` / `setCancelledDate` (default true) decide whether the dates are stamped,
`recurrenceOnNextLine` puts the next occurrence below the completed one, and a task marked
`🏁 delete` (`[onCompletion:: delete]`) is removed when it becomes done (its next occurrence stays).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from service.dates import iso_day_or_none
from service.dates.recurrence import RecurrenceError, next_date, parse_rule
from service.errors import ValidationFailed
from service.markdown import tasks as tk
from service.obsidian.task_status import StatusTable, is_open, vault_statuses
from service.tools.context import ToolContext
from service.vault.settings_files import read_json


def status_table_of(ctx: ToolContext) -> StatusTable:
    """The vault's statuses: built-in plus the Tasks plugin's custom ones."""
    return vault_statuses(ctx.vault.paths.root)


def status_names_of(ctx: ToolContext) -> dict[str, str]:
    """The names of the vault's statuses (`status.name` in a Tasks query)."""
    return tk.status_names(read_json(ctx.vault.paths.root, tk.TASKS_PLUGIN_DATA))


@dataclass(frozen=True, slots=True)
class TasksSettings:
    set_done_date: bool = True
    set_cancelled_date: bool = True
    next_below: bool = False  # recurrenceOnNextLine
    set_created_date: bool = False
    # taskFormat: the format the plugin writes a new field in ('dataview', else the emoji); None when
    # the vault has no Tasks settings (no plugin: a new field follows the task's own fields, as Dataview's)
    style: tk.Style | None = None


def tasks_settings_of(ctx: ToolContext) -> TasksSettings:
    """The Tasks plugin settings a status change follows (its defaults when unset)."""
    data: Any = read_json(ctx.vault.paths.root, tk.TASKS_PLUGIN_DATA)
    style: tk.Style | None = None if not isinstance(data, dict) else "emoji"
    data = data if isinstance(data, dict) else {}

    def flag(key: str, default: bool) -> bool:
        value = data.get(key)
        return value if isinstance(value, bool) else default

    return TasksSettings(
        flag("setDoneDate", True),
        flag("setCancelledDate", True),
        flag("recurrenceOnNextLine", False),
        flag("setCreatedDate", False),
        "dataview" if data.get("taskFormat") == "dataview" else style,
    )


def deleted_on_completion(
    task: tk.TaskLine, status: str, table: StatusTable, settings: TasksSettings | None = None
) -> bool:
    """Whether the plugin removes the task line: `🏁 delete` and the status becomes done."""
    fmt = settings.style if settings is not None else None
    action = (tk.parse_fields(task.body, fmt).on_completion or "").strip().lower()
    old, new = tk.status_type(table, task.status), tk.status_type(table, status)
    return action == "delete" and new == "done" and old != "done"


def _stamp(body: str, name: str, was: bool, now: bool, today: date, style: tk.Style, settings: TasksSettings) -> str:
    enabled = settings.set_done_date if name == "done" else settings.set_cancelled_date
    if now and not was:
        return tk.set_field(body, name, today.isoformat(), style, settings.style) if enabled else body
    if was and not now:
        return tk.set_field(body, name, None, style, settings.style)
    return body


def changed_line(
    task: tk.TaskLine, status: str, table: StatusTable, today: date, settings: TasksSettings | None = None
) -> tuple[tk.TaskLine, tk.TaskLine | None]:
    """The task with its new `status`, and the next occurrence when it is a recurring task completed
    (done; a cancelled one has none)."""
    settings = settings or TasksSettings()
    old, new = tk.status_type(table, task.status), tk.status_type(table, status)
    fields = tk.parse_fields(task.body, settings.style)  # in the plugin's format (`style`; None: both)
    style = settings.style or fields.style  # a new field: the plugin's format; one written keeps its own
    body = _stamp(task.body, "done", old == "done", new == "done", today, style, settings)
    body = _stamp(body, "cancelled", old == "cancelled", new == "cancelled", today, style, settings)
    changed = tk.TaskLine(task.prefix, status, task.gap, body)
    if new != "done" or old == "done" or not fields.recurrence:
        return changed, None
    return changed, _next_occurrence(task, fields, status, table, today, settings)


def _next_occurrence(
    task: tk.TaskLine, fields: tk.TaskFields, done_status: str, table: StatusTable, today: date, settings: TasksSettings
) -> tk.TaskLine:
    assert fields.recurrence is not None
    try:
        rule = parse_rule(fields.recurrence)
    except RecurrenceError as exc:
        raise ValidationFailed(
            str(exc),
            details={"reason": "unsupported_recurrence", "recurrence": fields.recurrence},
            hint="Nothing was changed; fix the rule (e.g. 'every week', 'every month on the 1st') or complete "
            "the task with a status that is not done.",
        ) from None
    body = tk.without_block_id(task.body)
    style = settings.style or fields.style
    for name in ("done", "cancelled", "id", "depends_on"):  # a new occurrence is no other task's dependency
        body = tk.set_field(body, name, None, style, settings.style)
    # a field that names no day (typed by hand: 2026-02-30) is not moved, as if it were absent
    days = {name: iso_day_or_none(getattr(fields, name) or "") for name in ("due", "scheduled", "start")}
    reference = next((d for d in days.values() if d is not None), None)
    if reference is not None:
        try:
            shift: timedelta = next_date(rule, today if rule.when_done else reference) - reference
            moved = {name: (day + shift).isoformat() for name, day in days.items() if day is not None}
        except OverflowError:  # 'every 99999999 days', or a date near 9999-12-31
            raise ValidationFailed(
                f"the next occurrence of {fields.recurrence!r} falls past the year 9999",
                details={"reason": "recurrence_out_of_range", "recurrence": fields.recurrence},
                hint="Nothing was changed; give the rule a smaller interval or complete the task with a status "
                "that is not done.",
            ) from None
        for name, value in moved.items():
            body = tk.set_field(body, name, value, style, settings.style)
    created = today.isoformat() if settings.set_created_date else None
    body = tk.set_field(body, "created", created, style, settings.style)
    after = table.get(done_status, ("done", " "))[1]
    status = after if is_open(tk.status_type(table, after)) else " "
    return tk.TaskLine(task.prefix, status, task.gap, body)
