"""tasks domain, Tasks plugin queries: tasks_filter.

Runs the text of a ```tasks block (`service.obsidian.tasks_query`) over the index's `tasks`
table without Obsidian. When every filter is exact SQL, the order is SQL, nothing is grouped and
no ACL rule hides a note from the caller, the index answers alone (a count and one page);
otherwise the query is tested in Python over the vault's task records (`task_records.py`, kept
per index generation) of the notes the caller may read — a denied folder's tasks are dropped
before anything is counted, sorted, grouped or paged. Relative dates count from `today`
(default: the server's date). Query text, line count and nesting are bounded; a regular
expression runs under the `[search]` time budget. A line that does not read is
`query_syntax_error` with its line number, text and column; nothing is run. Touches: index
tables `tasks`, `notes`, `headings`; `.obsidian/plugins/obsidian-tasks-plugin/data.json`
(statuses).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import Field

from service.budget import Budget
from service.dates import iso_day
from service.errors import QuerySyntaxError, ValidationFailed
from service.markdown.parse import note_title
from service.obsidian.tasks_query import (
    Context,
    LineError,
    Placed,
    Query,
    TaskRecord,
    order_sql,
    parse_query,
    run_query,
)
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.search_common import Partial, Readable, drop_gone, partial, query_key, readable, run
from service.tools.spec import ToolSpec
from service.tools.tasks.completion import StatusTable, status_table_of
from service.tools.tasks.task_records import COLUMNS, all_records, place_headings, to_records
from service.tools.tasks.tasks import TaskItem

MAX_QUERY_CHARS = 20_000
MAX_QUERY_LINES = 200
MAX_GROUPS_LISTED = 200


class TasksFilterIn(ToolInput):
    query: str = Field(
        max_length=MAX_QUERY_CHARS,
        description="The text of a ```tasks block, one instruction a line: filters (not done, done, due|scheduled|"
        "starts|happens|done before|after|on <date>, has/no due date, priority is [above|below] <level>, path|"
        "description|heading includes|does not include <text>, tags include <tag>, boolean lines '(a) AND (b)', "
        "OR, XOR, NOT), 'sort by <field> [reverse]', 'group by <field>', 'limit N', 'explain'. Dates: YYYY-MM-DD, "
        "today, tomorrow, yesterday, next monday, in two weeks, this|next|last week|month|year.",
    )
    today: str | None = Field(
        default=None, pattern=r"^\d{4}-\d{2}-\d{2}$", description="The day relative dates count from (default: today)."
    )
    limit: int = Field(default=50, ge=1, le=500, description="Page size (the query's own 'limit' caps the total).")
    cursor: str | None = Field(default=None, description="`next_cursor` of the previous page (same query).")


class FilteredTask(TaskItem):
    group: list[str] = Field(default_factory=list, description="The task's group, one name per 'group by' line.")


class TaskGroup(ToolOutput):
    names: list[str] = Field(description="Group names, one per 'group by' line.")
    count: int = Field(description="Tasks in the group.")


class TasksFilterOut(Partial, ToolOutput):
    items: list[FilteredTask] = Field(description="Tasks of this page, in query order (grouped when it groups).")
    total: int = Field(description="Results in all pages (a task under several tags counts once per group).")
    groups: list[TaskGroup] = Field(
        default_factory=list, description=f"Groups in order with their sizes (the first {MAX_GROUPS_LISTED})."
    )
    next_cursor: str | None = Field(description="Cursor of the next page, None at the end.")
    explain: list[str] | None = Field(default=None, description="The query as read (when it says 'explain').")
    ignored: list[str] = Field(default_factory=list, description="Display-only lines set aside (hide, show, …).")


def _parse(args: TasksFilterIn, ctx: Context) -> Query:
    lines = args.query.count("\n") + 1
    if lines > MAX_QUERY_LINES:
        raise ValidationFailed(
            f"the query has {lines} lines, more than {MAX_QUERY_LINES}",
            details={"field": "query", "lines": lines, "max_lines": MAX_QUERY_LINES},
        )
    try:
        return parse_query(args.query, ctx)
    except LineError as e:
        raise QuerySyntaxError(
            f"line {e.line}: {e.message}",
            details={"line": e.line, "column": e.column, "text": e.text},
            hint="Write one Tasks instruction a line; see docs/bridges.md (tasks_filter) for what is read.",
        ) from None


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the index is asked: the query's SQL, its order, and the sort keys left to Python."""

    where: str
    params: tuple[Any, ...]
    order: str
    order_params: tuple[Any, ...]
    python_sorts: list[tuple[str, bool]]


def _plan(ctx: ToolContext, query: Query, table: StatusTable) -> _Plan:
    clauses, params = query.sql()
    where = " AND ".join(["t.vault_id = ?", *(f"({c})" for c in clauses)])
    order, order_params, python_sorts = order_sql(query, {c: kind for c, (kind, _) in table.items()})
    return _Plan(where, (ctx.vault.id, *params), order, order_params, python_sorts)


def _whole_in_index(query: Query, plan: _Plan, can_read: Readable) -> bool:
    """The index alone answers (count and page): every filter is exact SQL, the order is SQL,
    nothing is grouped, and no rule hides a note from this caller."""
    exact = all(f.sql is not None and f.exact for f in query.filters)
    return exact and not plan.python_sorts and not query.groups and can_read.everything


async def _page_from_index(
    ctx: ToolContext, query: Query, plan: _Plan, table: StatusTable, offset: int, limit: int
) -> tuple[list[TaskRecord], int]:
    def fetch(conn: sqlite3.Connection) -> tuple[list[tuple[Any, ...]], int]:
        sql = f"FROM tasks t JOIN notes n ON n.id = t.note_id WHERE {plan.where}"
        total = int(conn.execute(f"SELECT COUNT(*) {sql}", plan.params).fetchone()[0])
        total = total if query.limit is None else min(total, query.limit)
        size = max(0, min(limit, total - offset))
        rows = conn.execute(
            f"SELECT {COLUMNS} {sql} ORDER BY {plan.order} LIMIT ? OFFSET ?",
            [*plan.params, *plan.order_params, size, offset],
        ).fetchall()
        return rows, total

    rows, total = await run(ctx, fetch)
    return to_records(rows, table), total


async def tasks_filter(ctx: ToolContext, args: TasksFilterIn) -> TasksFilterOut:
    today = iso_day(args.today, "today") if args.today else date.today()
    limits = ctx.services.settings.limits
    table = status_table_of(ctx)
    closed = tuple(sorted(c for c, (kind, _) in table.items() if kind not in ("todo", "in_progress")))
    query = _parse(args, Context(today, closed, limits.max_depth))
    plan = _plan(ctx, query, table)
    state = query_key(args.query, today.isoformat())
    offset = decode_cursor(args.cursor, q=state)
    can_read = readable(ctx)
    if _whole_in_index(query, plan, can_read):
        records, total = await _page_from_index(ctx, query, plan, table, offset, args.limit)
        found = [Placed((), t) for t in records]
        page = await drop_gone(ctx, found, 0, len(found), lambda p: (p.task.path,))
        total -= len(found) - len(page)
        placed = page
        await _page_headings(ctx, records)
    else:
        records = await all_records(ctx, table)
        if not can_read.everything:
            records = [t for t in records if can_read(t.path)]
        search = ctx.services.settings.search
        with Budget(limits, max_seconds=search.regex_budget_ms / 1000, what="the Tasks query").active():
            placed = run_query(query, records, list(query.sorts))
        placed = await drop_gone(ctx, placed, offset, args.limit, lambda p: (p.task.path,))
        total = len(placed)
        page = placed[offset : offset + args.limit]
    more = offset + args.limit < total
    return TasksFilterOut(
        items=[_item(ctx, p) for p in page],
        total=total,
        groups=_groups(placed) if query.groups else [],
        next_cursor=encode_cursor(offset + args.limit, q=state) if more else None,
        explain=query.describe() if query.explain else None,
        ignored=query.ignored,
        partial=partial(ctx),
    )


async def _page_headings(ctx: ToolContext, tasks: list[TaskRecord]) -> None:
    """The heading each task of the page is under (the query did not need them all)."""
    paths = sorted({t.path for t in tasks})
    if not paths:
        return
    marks = ",".join("?" * len(paths))

    def fetch(conn: sqlite3.Connection) -> list[tuple[str, int, str]]:
        return conn.execute(
            f"SELECT n.path, h.line, h.text FROM headings h JOIN notes n ON n.id = h.note_id"
            f" WHERE n.vault_id = ? AND n.path IN ({marks}) ORDER BY n.path, h.line",
            [ctx.vault.id, *paths],
        ).fetchall()

    place_headings(tasks, await run(ctx, fetch))


def _groups(placed: list[Placed]) -> list[TaskGroup]:
    counts: dict[tuple[str, ...], int] = {}
    for p in placed:
        counts[p.group] = counts.get(p.group, 0) + 1
    return [TaskGroup(names=list(g), count=n) for g, n in list(counts.items())[:MAX_GROUPS_LISTED]]


def _item(ctx: ToolContext, p: Placed) -> FilteredTask:
    t = p.task
    return FilteredTask(
        path=t.path,
        title=note_title(t.path),
        obsidian_url=ctx.vault.url(t.path),
        line=t.line + 1,
        status=t.status,
        status_type=t.kind,
        text=t.text,
        description=t.description,
        heading=t.heading,
        tags=t.tags,
        due=t.due,
        scheduled=t.scheduled,
        start=t.start,
        created=t.created,
        done=t.done,
        cancelled=t.cancelled,
        priority=t.priority,
        recurrence=t.recurrence,
        id=t.task_id,
        depends_on=json.loads(t.depends_on_json or "[]"),
        group=list(p.group),
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="tasks_filter",
        domain="tasks",
        title="Run a Tasks plugin query",
        description="Run the text of a ```tasks block (the Tasks plugin's query language) over the vault's tasks "
        "without Obsidian: not done / done, due|scheduled|starts|happens before|after|on <date> (relative dates "
        "too), priority is, path|description|heading includes, tags include, boolean lines with AND/OR/XOR/NOT, "
        "sort by, group by, limit, explain. A line it cannot read is query_syntax_error naming the line.",
        input_model=TasksFilterIn,
        output_model=TasksFilterOut,
        handler=tasks_filter,
    ),
)
