"""What a status change does to a task line, as the Tasks plugin does it.

Done (a status of type done) stamps the done date (`✅ 2026-11-24` or `[completion:: 2026-11-24]`,
the task's own format) and leaving done removes it; cancelled stamps and un-stamps the cancelled
date the same way. Completing a recurring task also builds its next occurrence, which the caller
inserts above it: the rule (`service.dates.recurrence`) moves the reference date (due, else
scheduled, else start) to the rule's next date after it — after the completion date for
`when done` —, the other dates keep their distance to it, the done and cancelled dates and the
block id are dropped, a created date becomes the completion date, and the status is the one the
settings give after done (a space unless the Tasks plugin settings say otherwise). A task
without dates recurs without dates.
"""

from __future__ import annotations

from datetime import date, timedelta

from service.dates import iso_day_or_none
from service.dates.recurrence import RecurrenceError, next_date, parse_rule
from service.errors import ValidationFailed
from service.markdown import tasks as tk
from service.tools.context import ToolContext
from service.vault.settings_files import read_json

StatusTable = dict[str, tuple[tk.StatusType, str]]


def status_table_of(ctx: ToolContext) -> StatusTable:
    """The vault's statuses: built-in plus the Tasks plugin's custom ones."""
    return tk.status_table(read_json(ctx.vault.paths.root, tk.TASKS_PLUGIN_DATA))


def _stamp(body: str, name: str, was: bool, now: bool, today: date, style: tk.Style) -> str:
    if now and not was:
        return tk.set_field(body, name, today.isoformat(), style)
    if was and not now:
        return tk.set_field(body, name, None, style)
    return body


def changed_line(
    task: tk.TaskLine, status: str, table: StatusTable, today: date
) -> tuple[tk.TaskLine, tk.TaskLine | None]:
    """The task with its new `status`, and the next occurrence when it is a recurring task completed."""
    old, new = tk.status_type(table, task.status), tk.status_type(table, status)
    fields = task.fields
    body = _stamp(task.body, "done", old == "done", new == "done", today, fields.style)
    body = _stamp(body, "cancelled", old == "cancelled", new == "cancelled", today, fields.style)
    changed = tk.TaskLine(task.prefix, status, task.gap, body)
    if new != "done" or old == "done" or not fields.recurrence:
        return changed, None
    return changed, _next_occurrence(task, fields, status, table, today)


def _next_occurrence(
    task: tk.TaskLine, fields: tk.TaskFields, done_status: str, table: StatusTable, today: date
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
    for name in ("done", "cancelled"):
        body = tk.set_field(body, name, None, fields.style)
    # a field that names no day (typed by hand: 2026-02-30) is not moved, as if it were absent
    days = {name: iso_day_or_none(getattr(fields, name) or "") for name in ("due", "scheduled", "start")}
    reference = next((d for d in days.values() if d is not None), None)
    if reference is not None:
        shift: timedelta = next_date(rule, today if rule.when_done else reference) - reference
        for name, day in days.items():
            if day is not None:
                body = tk.set_field(body, name, (day + shift).isoformat(), fields.style)
    if fields.created:
        body = tk.set_field(body, "created", today.isoformat(), fields.style)
    after = table.get(done_status, ("done", " "))[1]
    status = after if tk.status_type(table, after) in ("todo", "in_progress") else " "
    return tk.TaskLine(task.prefix, status, task.gap, body)
