"""tasks domain, checkbox tasks: list_tasks (set_task_status is in `status.py`).

`list_tasks` reads the index (table `tasks`, filled by the parser through
`service.markdown.tasks`: the Tasks plugin settings' task format, both without them; code
blocks skipped), filters, sorts and
pages; notes the caller may not read are dropped before counting and paging. What the Tasks plugin
settings change in a task reads as in tasks_filter: a task's tags leave out the global filter's tag
(`#task`), and with "use filename as Scheduled date" an undated task of a note named by a date is
scheduled on that date, for the scheduled filters, the sort and the answer alike. Touches: index
tables `tasks`, `notes`, `headings`; `.obsidian/plugins/obsidian-tasks-plugin/data.json` (statuses,
global filter, filename dates; read-only).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field, field_validator

from service.dates import iso_day
from service.markdown import tasks as tk
from service.markdown.parse import note_title
from service.obsidian.task_status import global_filter, is_open
from service.obsidian.tasks_query.filename_dates import FilenameDates
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.search_common import Partial, drop_gone, partial, query_key, readable, run
from service.tools.spec import ToolSpec
from service.tools.tasks.completion import status_table_of
from service.tools.tasks.task_records import index_task_format
from service.vault.settings_files import read_json

StatusFilter = Literal["todo", "in_progress", "on_hold", "done", "cancelled", "non_task", "open", "closed"]
SortKey = Literal["path", "due", "scheduled", "priority", "status"]
ISO_DATE = r"^\d{4}-\d{2}-\d{2}$"


def _date(description: str) -> Any:
    return Field(default=None, pattern=ISO_DATE, description=description)


class ListTasksIn(ToolInput):
    status: list[StatusFilter] | None = Field(
        default=None,
        description="Status types to keep: todo, in_progress, on_hold, done, cancelled, non_task, or open (todo + "
        "in_progress + on_hold: the Tasks plugin's `not done`, index_status' open_tasks) / closed (done + cancelled + "
        "non_task: its `done`). Custom statuses follow the Tasks plugin settings; an unknown character is todo.",
    )
    status_char: list[str] | None = Field(default=None, description="Exact status characters to keep, e.g. ['?', '!'].")
    due_before: str | None = _date("Due strictly before this date (YYYY-MM-DD).")
    due_after: str | None = _date("Due strictly after this date.")
    due_on: str | None = _date("Due on this date.")
    scheduled_before: str | None = _date("Scheduled strictly before this date.")
    scheduled_after: str | None = _date("Scheduled strictly after this date.")
    scheduled_on: str | None = _date("Scheduled on this date.")
    has_due: bool | None = Field(default=None, description="True: only tasks with a due date; false: only without.")
    no_date: bool | None = Field(
        default=None, description="True: only tasks with no due, scheduled or start date at all."
    )
    priority: list[Literal["highest", "high", "medium", "none", "low", "lowest"]] | None = Field(
        default=None, description="Priorities to keep ('none' = no priority)."
    )
    tag: str | None = Field(
        default=None,
        description="Keep tasks carrying this tag or a nested one ('#' optional), among the tags `tags` answers.",
    )
    folder: str | None = Field(default=None, description="Only notes in this folder (and below).")
    note: str | None = Field(default=None, description="Only this note (path or wikilink name).")
    text: str | None = Field(default=None, description="Case-insensitive text the task line contains.")
    all_checkboxes: bool = Field(
        default=False,
        description="With the Tasks plugin's global filter (e.g. #task), only checkbox items containing it are "
        "tasks, as in the plugin and tasks_filter; true lists every checkbox item.",
    )
    sort: SortKey = Field(
        default="path", description="path (note, then line), due / scheduled (undated last), priority, status."
    )
    limit: int = Field(default=50, ge=1, le=500, description="Page size.")
    cursor: str | None = Field(default=None, description="`next_cursor` of the previous page (same filters).")

    @field_validator("status_char")
    @classmethod
    def _one_char(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and any(len(c) != 1 for c in value):
            raise ValueError("each status character is exactly one character")
        return value


class TaskItem(ToolOutput):
    path: str = Field(description="Vault-relative path of the note.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL of the note.")
    line: int = Field(description="1-based line number of the task in the file.")
    status: str = Field(description="The status character between the brackets.")
    status_type: str = Field(description="todo, in_progress, on_hold, done, cancelled or non_task.")
    text: str = Field(description="The task text after '] ' as written (pass as expected_text).")
    description: str = Field(description="The text without the Tasks fields and block id.")
    heading: str | None = Field(default=None, description="The heading the task is under, if any.")
    tags: list[str] = Field(
        description="Tags on the task line, without '#'; not the Tasks plugin's global filter tag (#task), as the "
        "plugin shows them."
    )
    due: str | None = Field(default=None, description="📅 / [due:: ] date.")
    scheduled: str | None = Field(
        default=None,
        description="⏳ / [scheduled:: ] date; with the Tasks plugin's 'use filename as Scheduled date', an undated "
        "task's date from its note's name.",
    )
    start: str | None = Field(default=None, description="🛫 / [start:: ] date.")
    created: str | None = Field(default=None, description="➕ / [created:: ] date.")
    done: str | None = Field(default=None, description="✅ / [completion:: ] date.")
    cancelled: str | None = Field(default=None, description="❌ / [cancelled:: ] date.")
    priority: str | None = Field(default=None, description="highest, high, medium, low or lowest.")
    recurrence: str | None = Field(default=None, description="🔁 / [repeat:: ] rule.")
    id: str | None = Field(default=None, description="🆔 / [id:: ] task id.")
    depends_on: list[str] = Field(default_factory=list, description="⛔ / [dependsOn:: ] ids.")


class ListTasksOut(Partial, ToolOutput):
    items: list[TaskItem] = Field(description="Tasks of this page.")
    total: int = Field(description="Number of matching tasks (all pages).")
    next_cursor: str | None = Field(description="Cursor of the next page, None at the end.")
    global_filter: str | None = Field(
        default=None, description="The Tasks plugin's global filter the tasks were narrowed by (all_checkboxes: none)."
    )


_COLUMNS = (
    "n.path, t.line, t.status, t.text, t.due, t.scheduled, t.start, t.done, t.priority, t.tags,"
    " t.created, t.cancelled, t.recurrence, t.task_id, t.depends_on"
)
_NAMES = tuple(c.strip().split(".")[1] for c in _COLUMNS.split(","))
# What filtering and sorting read, for every task of the query; the page's tasks are then read whole.
_KEYS = "t.rowid, n.path, t.line, t.status, t.due, t.scheduled, t.start, t.priority, t.tags"
_KEY_NAMES = ("rowid", "path", "line", "status", "due", "scheduled", "start", "priority", "tags")
Row = dict[str, Any]
_PRIORITY_RANK = {p: i for i, p in enumerate(tk.PRIORITIES)}
_TYPE_RANK = {"in_progress": 0, "todo": 1, "on_hold": 2, "done": 3, "cancelled": 4, "non_task": 5}


_SCHEDULED = (("scheduled_before", "<"), ("scheduled_after", ">"), ("scheduled_on", "="))


def _where(args: ListTasksIn, note: str | None, folder: str | None, only: str, dated: bool) -> tuple[str, list[Any]]:
    """The filters SQL applies; with filename dates (`dated`) a task's scheduled date is not its
    column's alone, so the scheduled filters are left to `_keeper`."""
    sql: list[str] = ["t.vault_id = ?"]
    params: list[Any] = []
    if only:  # the global filter: only items containing it are tasks (case-sensitive, as the plugin)
        sql.append("instr(t.text, ?) > 0")
        params.append(only)
    for column, op, value, name in (
        ("due", "<", args.due_before, "due_before"),
        ("due", ">", args.due_after, "due_after"),
        ("due", "=", args.due_on, "due_on"),
        ("scheduled", "<", args.scheduled_before, "scheduled_before"),
        ("scheduled", ">", args.scheduled_after, "scheduled_after"),
        ("scheduled", "=", args.scheduled_on, "scheduled_on"),
    ):
        if value is not None:
            iso_day(value, name)  # 2026-02-30 has the shape of a date but names no day: refused, not 'no task'
            if dated and column == "scheduled":
                continue
            sql.append(f"t.{column} {op} ?")
            params.append(value)
    if args.has_due is not None:
        sql.append("t.due IS NOT NULL" if args.has_due else "t.due IS NULL")
    if args.no_date and not dated:
        sql.append("t.due IS NULL AND t.scheduled IS NULL AND t.start IS NULL")
    if args.status_char:
        sql.append(f"t.status IN ({','.join('?' * len(args.status_char))})")
        params.extend(args.status_char)
    if note is not None:
        sql.append("n.path = ?")
        params.append(note)
    if folder:
        sql.append("substr(n.path, 1, ?) = ?")
        params.extend([len(folder) + 1, folder + "/"])
    if args.text:
        sql.append("instr(lower(t.text), ?) > 0")
        params.append(args.text.lower())
    return " AND ".join(sql), params


def _keeper(args: ListTasksIn, kinds: dict[str, tk.StatusType], dated: bool) -> Callable[[Row], bool]:
    """The filters SQL does not apply (status types, priority, tag; the scheduled ones with
    filename dates), decided once per call, on rows as `_as_shown` gives them."""
    wanted = set(args.status) if args.status else None  # open / closed: `is_open`, as every count reads it
    statuses = {
        char
        for char, kind in kinds.items()
        if wanted is None or kind in wanted or ("open" if is_open(kind) else "closed") in wanted
    }
    priorities = set(args.priority) if args.priority else None
    tag = args.tag.lstrip("#").lower() if args.tag else None
    scheduled = [(op, value) for name, op in _SCHEDULED if dated and (value := getattr(args, name)) is not None]

    def keep(row: Row) -> bool:
        if row["status"] not in statuses:
            return False
        if priorities is not None and (row["priority"] or "none") not in priorities:
            return False
        if tag is not None:
            tags = [t.lower() for t in row["tags"]]
            if not any(t == tag or t.startswith(tag + "/") for t in tags):
                return False
        if dated and args.no_date and (row["due"] or row["scheduled"] or row["start"]):
            return False
        day = row["scheduled"]
        for op, value in scheduled:
            if day is None or not (day < value if op == "<" else day > value if op == ">" else day == value):
                return False
        return True

    return keep


def _sort_key(sort: SortKey, kinds: dict[str, tk.StatusType]) -> Any:
    def key(row: Row) -> tuple[Any, ...]:
        place = (row["path"], row["line"])
        if sort in ("due", "scheduled"):
            value = row[sort]
            return (value is None, value or "", *place)
        if sort == "priority":
            return (_PRIORITY_RANK[row["priority"] or "none"], *place)
        if sort == "status":
            return (_TYPE_RANK[kinds[row["status"]]], *place)
        return place

    return key


async def list_tasks(ctx: ToolContext, args: ListTasksIn) -> ListTasksOut:
    fmt = await index_task_format(ctx)
    note = (await ctx.find_note(args.note, "read")).vp.rel if args.note is not None else None
    folder = ctx.folder(args.folder, field="folder").rel if args.folder else None
    table = status_table_of(ctx)
    only = "" if args.all_checkboxes else global_filter(ctx.vault)
    dated = FilenameDates.of(read_json(ctx.vault.paths.root, tk.TASKS_PLUGIN_DATA))
    where, params = _where(args, note, folder, only, dated.enabled)
    shown = _as_shown(only, dated)
    can_read = readable(ctx)

    def query(conn: sqlite3.Connection) -> list[Row]:
        cur = conn.execute(
            f"SELECT {_KEYS} FROM tasks t JOIN notes n ON n.id = t.note_id WHERE {where}", [ctx.vault.id, *params]
        )
        return [shown(dict(zip(_KEY_NAMES, r, strict=True))) for r in cur.fetchall()]

    def whole(ids: list[int]) -> Callable[[sqlite3.Connection], dict[int, Row]]:
        def read(conn: sqlite3.Connection) -> dict[int, Row]:
            marks = ",".join("?" * len(ids))
            sql = f"SELECT t.rowid, {_COLUMNS} FROM tasks t JOIN notes n ON n.id = t.note_id WHERE t.rowid IN ({marks})"
            return {int(r[0]): shown(dict(zip(_NAMES, r[1:], strict=True))) for r in conn.execute(sql, ids)}

        return read

    rows = await run(ctx, query)
    if not can_read.everything:  # no rule can deny this caller a note: nothing to ask per task
        rows = [r for r in rows if can_read(r["path"])]
    kinds = {char: tk.status_type(table, char) for char in {r["status"] for r in rows}}
    rows = sorted(filter(_keeper(args, kinds, dated.enabled), rows), key=_sort_key(args.sort, kinds))
    state = query_key(args.model_dump(exclude={"cursor", "limit", "idempotency_key", "elicit_token"}))
    offset = decode_cursor(args.cursor, q=state)
    rows = await drop_gone(ctx, rows, offset, args.limit, lambda r: (r["path"],))
    page = rows[offset : offset + args.limit]
    found = await run(ctx, whole([int(r["rowid"]) for r in page])) if page else {}
    page = [found[int(r["rowid"])] for r in page if int(r["rowid"]) in found]  # one reindexed meanwhile is left out
    headings = await _headings(ctx, {r["path"] for r in page})
    items = [_item(ctx, r, kinds[r["status"]], headings.get(r["path"], []), fmt) for r in page]
    more = offset + args.limit < len(rows)
    return ListTasksOut(
        items=items,
        total=len(rows),
        next_cursor=encode_cursor(offset + args.limit, q=state) if more else None,
        global_filter=only or None,
        partial=partial(ctx),
    )


def _as_shown(only: str, dated: FilenameDates) -> Callable[[Row], Row]:
    """An index row as the Tasks plugin shows the task (`tasks_filter`'s records read the same):
    its tags (a list) without the global filter's tag when the filter applies (`only`), and with
    filename dates on, an undated task scheduled on its note's date."""
    days: dict[str, str | None] = {}

    def shown(row: Row) -> Row:
        raw = row["tags"]
        tags = json.loads(raw) if raw and raw != "[]" else []  # most tasks carry no tag
        row["tags"] = [t for t in tags if "#" + t != only] if only else tags
        if dated.enabled and not (row["due"] or row["scheduled"] or row["start"]):
            path = row["path"]
            if path not in days:
                days[path] = dated.scheduled(path)
            row["scheduled"] = days[path]
        return row

    return shown


async def _headings(ctx: ToolContext, paths: set[str]) -> dict[str, list[tuple[int, str]]]:
    if not paths:
        return {}
    marks = ",".join("?" * len(paths))

    def query(conn: sqlite3.Connection) -> list[tuple[str, int, str]]:
        return conn.execute(
            f"SELECT n.path, h.line, h.text FROM headings h JOIN notes n ON n.id = h.note_id"
            f" WHERE n.vault_id = ? AND n.path IN ({marks}) ORDER BY h.line",
            [ctx.vault.id, *sorted(paths)],
        ).fetchall()

    out: dict[str, list[tuple[int, str]]] = {}
    for path, line, text in await run(ctx, query):
        out.setdefault(path, []).append((int(line), str(text)))
    return out


def _item(ctx: ToolContext, row: Row, kind: str, headings: list[tuple[int, str]], fmt: tk.Style | None) -> TaskItem:
    fields = tk.parse_fields(row["text"], fmt)
    heading = next((text for line, text in reversed(headings) if line < row["line"]), None)
    return TaskItem(
        path=row["path"],
        title=note_title(row["path"]),
        obsidian_url=ctx.vault.url(row["path"]),
        line=int(row["line"]) + 1,
        status=row["status"],
        status_type=kind,
        text=row["text"],
        description=fields.description,
        heading=heading,
        tags=row["tags"],
        due=row["due"],
        scheduled=row["scheduled"],
        start=row["start"],
        created=row["created"],
        done=row["done"],
        cancelled=row["cancelled"],
        priority=row["priority"],
        recurrence=row["recurrence"],
        id=row["task_id"],
        depends_on=json.loads(row["depends_on"] or "[]"),
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="list_tasks",
        domain="tasks",
        title="List tasks",
        description="Checkbox tasks across the vault with status, dates (due, scheduled, start, done, …), "
        "priority, recurrence, tags and heading, in the Tasks plugin's task format (emoji or [due:: …]; both without "
        "its settings); filter by "
        "status, dates, priority, tag, folder, note or text, sort and page. To tick one off use set_task_status.",
        input_model=ListTasksIn,
        output_model=ListTasksOut,
        handler=list_tasks,
    ),
)
