"""tasks domain, Tasks plugin queries: tasks_filter.

Runs the text of a ```tasks block (`service.obsidian.tasks_query`) over the index's `tasks`
table without Obsidian. Once the vault's task columns are built for the current index generation
(`task_records.py`), every query runs over them with array operations; before that, a query the
index answers alone — every filter exact SQL, the order SQL, nothing grouped, no ACL rule hiding a
note from the caller — is a count and one page in SQL, and any other query builds the columns.
Notes the caller may not read are dropped before anything is counted, sorted, grouped or paged.
The vault's Tasks plugin settings add the global filter (only list items containing it are
tasks; the vault's `tasks_global_filter` setting wins) and the global query (read before the
query's own lines unless it says `ignore global query`). Relative dates and urgency count from
`today` (default: the server's date). Query text, line count and nesting are bounded; a regular
expression and the whole evaluation run under the `[search]` time budget (`regex_budget_ms`), in a
worker thread (at most `QUERIES_AT_ONCE` at a time), so the event loop answers other calls meanwhile;
the values its expressions build together are bounded by `[limits] max_eval_bytes`. A line that does not read is
`query_syntax_error` with its line number, text and column (and `source: global query` when the
global query is at fault); nothing is run. `filter|sort|group by function` expressions are read
as a safe subset of JavaScript (`expressions.py`) and evaluated here, never by a JavaScript engine;
one that fails on a task while running is a `query_syntax_error` naming its line and column too.
Touches: index tables `tasks`, `notes`, `headings`;
`.obsidian/plugins/obsidian-tasks-plugin/data.json` (statuses, global filter, global query).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections import Counter
from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import Field

from service.budget import Budget
from service.dates import iso_day
from service.errors import QuerySyntaxError, ValidationFailed
from service.markdown import frontmatter as fm
from service.markdown import tasks as tk
from service.markdown.parse import note_title
from service.obsidian.task_status import StatusTable, closed_statuses, task_format
from service.obsidian.task_status import global_filter as global_filter_of
from service.obsidian.tasks_query import (
    Answer,
    Columns,
    Context,
    LineError,
    Placed,
    Placeholders,
    Query,
    TaskRecord,
    file_defaults,
    global_filter,
    order_sql,
    parse_query,
    run_columns,
)
from service.obsidian.tasks_query.columns import Ints
from service.obsidian.tasks_query.expressions import RunError
from service.tasks import LoopSlots
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput, decode_cursor, encode_cursor
from service.tools.search_common import Partial, Readable, drop_gone, partial, query_key, readable, run
from service.tools.spec import ToolSpec
from service.tools.tasks.completion import status_names_of, status_table_of
from service.tools.tasks.task_records import (
    COLUMNS,
    all_columns,
    cached_columns,
    filename_dates_of,
    index_task_format,
    link_targets,
    place_all_headings,
    place_all_links,
    place_all_properties,
    place_headings,
    to_records,
)
from service.tools.tasks.tasks import TaskItem
from service.vault import offloop
from service.vault.settings_files import read_json

MAX_QUERY_CHARS = 20_000
MAX_QUERY_LINES = 200
MAX_GROUPS_LISTED = 200


class TasksFilterIn(ToolInput):
    query: str = Field(
        max_length=MAX_QUERY_CHARS,
        description="The text of a ```tasks block, one instruction a line: filters (not done, done, due|scheduled|"
        "starts|happens|done before|after|on <date>, has/no due date, priority is [above|below] <level>, path|"
        "description|heading includes|does not include <text>, tags include <tag>, exclude sub-items, boolean lines "
        "'(a) AND (b)', OR, XOR, NOT), 'sort by <field> [reverse]' (urgency too), 'group by <field>', 'limit N', "
        "'explain'. Dates: "
        "YYYY-MM-DD, today, tomorrow, yesterday, next monday, in two weeks, this|next|last week|month|year. "
        "'filter|sort|group by function <expression>': a safe subset of the plugin's JavaScript expressions (task "
        "fields, moment(), && || ! comparisons; docs/bridges.md), never run as JavaScript.",
    )
    today: str | None = Field(
        default=None, pattern=r"^\d{4}-\d{2}-\d{2}$", description="The day relative dates count from (default: today)."
    )
    file: str | None = Field(
        default=None,
        max_length=1024,
        description="The note the ```tasks block is in (path or wikilink name), for its {{query.file.path}}… "
        "and {{query.file.property('x')}} placeholders, presets like this_file, and its TQ_* properties "
        "(TQ_extra_instructions).",
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


@dataclass(frozen=True, slots=True)
class PluginGlobals:
    """What the vault's Tasks plugin settings add to every query."""

    global_filter: str = ""  # only list items containing it are tasks
    global_query: str = ""  # instructions read before every query's own
    presets: dict[str, str] | None = None  # `preset NAME` / `{{preset.NAME}}` (None: the plugin's defaults)


def plugin_globals(ctx: ToolContext) -> PluginGlobals:
    """The global filter (the vault's `tasks_global_filter` setting, else the plugin's
    `globalFilter`) and the plugin's `globalQuery`."""
    data: Any = read_json(ctx.vault.paths.root, tk.TASKS_PLUGIN_DATA)
    data = data if isinstance(data, dict) else {}
    query = data.get("globalQuery")
    found = data.get("presets")
    presets = {str(k): v for k, v in found.items() if isinstance(v, str)} if isinstance(found, dict) else None
    return PluginGlobals(global_filter_of(ctx.vault), query if isinstance(query, str) else "", presets)


def _parse(
    args: TasksFilterIn, ctx: Context, globals_: PluginGlobals, file: str | None, properties: dict[str, Any]
) -> Query:
    lines = args.query.count("\n") + 1
    if lines > MAX_QUERY_LINES:
        raise ValidationFailed(
            f"the query has {lines} lines, more than {MAX_QUERY_LINES}",
            details={"field": "query", "lines": lines, "max_lines": MAX_QUERY_LINES},
        )
    places = Placeholders(file, globals_.presets, properties)
    query = _read(args.query, ctx, "query", places)
    if defaults := file_defaults(properties):  # the query note's TQ_* properties, before the query's own lines
        query = _merged(_read(defaults, ctx, "query file defaults", places), query)
    if globals_.global_query.strip() and not any(i.lower() == "ignore global query" for i in query.ignored):
        query = _merged(_read(globals_.global_query, ctx, "global query", places), query)
    if globals_.global_filter:
        query.filters.insert(0, global_filter(globals_.global_filter))
    return query


def _read(text: str, ctx: Context, source: str, places: Placeholders) -> Query:
    try:
        return parse_query(text, ctx, places)
    except LineError as e:
        where = {"query": "", "global query": "the Tasks plugin's global query (its settings), "}.get(
            source, "the query note's TQ_* properties (query file defaults), "
        )
        raise QuerySyntaxError(
            f"{where}line {e.line}: {e.message}",
            details={"line": e.line, "column": e.column, "text": e.text, **({} if where == "" else {"source": source})},
            hint="Write one Tasks instruction a line; see docs/bridges.md (tasks_filter) for what is read.",
        ) from None


def _merged(first: Query, then: Query) -> Query:
    """The global query's instructions read before the query's own, as the plugin prepends them."""

    def own(keys: list[tuple[str, bool]]) -> list[tuple[str, bool]]:  # its expressions' names kept apart
        return [(f"global {name}" if name in first.functions else name, reverse) for name, reverse in keys]

    return Query(
        today=then.today,
        filters=[*first.filters, *then.filters],
        sorts=[*own(first.sorts), *then.sorts],
        groups=[*own(first.groups), *then.groups],
        functions={**{f"global {name}": f for name, f in first.functions.items()}, **then.functions},
        limit=then.limit if then.limit is not None else first.limit,
        group_limit=then.group_limit if then.group_limit is not None else first.group_limit,
        explain=first.explain or then.explain,
        ignored=then.ignored,
    )


async def _query_note(ctx: ToolContext, name: str | None) -> tuple[str | None, dict[str, Any]]:
    """The note the query is in (`file`) and its properties (placeholders, query file defaults)."""
    if name is None:
        return None, {}
    vp = (await ctx.find_note(name, "read")).vp
    note = await offloop.read(ctx.vault.files.read, vp)
    return vp.rel, fm.split(note.content).data


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
    found = plugin_globals(ctx).global_filter
    return to_records(
        rows, table, status_names_of(ctx), global_filter=found, task_format=task_format(ctx.vault.paths.root)
    ), total


async def tasks_filter(ctx: ToolContext, args: TasksFilterIn) -> TasksFilterOut:
    today = iso_day(args.today, "today") if args.today else date.today()
    await index_task_format(ctx)
    limits = ctx.services.settings.limits
    table = status_table_of(ctx)
    file, properties = await _query_note(ctx, args.file)
    globals_ = plugin_globals(ctx)
    query = _parse(args, Context(today, closed_statuses(table), limits.max_depth), globals_, file, properties)
    state = query_key(args.query, today.isoformat(), file)
    offset = decode_cursor(args.cursor, q=state)
    can_read = readable(ctx)
    cols = cached_columns(ctx, table, globals_.global_filter)
    if cols is None:  # the records are not built for this index generation: the index may answer alone
        plan = _plan(ctx, query, table)
        if _whole_in_index(query, plan, can_read) and not filename_dates_of(ctx).enabled:  # dates not in the index
            return await _from_index(ctx, args, query, plan, table, offset, state)
        cols = await all_columns(ctx, table, globals_.global_filter)
    if query.reads_headings:
        await place_all_headings(ctx, cols)
    if query.reads_properties:
        await place_all_properties(ctx, cols)
    if query.reads_links:
        await place_all_links(ctx, cols)
        if not can_read.everything:  # a link to a note the caller may not read is unresolved to them
            query.unreadable = frozenset(p for p in link_targets(cols) if not can_read(p))
    idx = None if can_read.everything else cols.all[cols.note_mask(can_read, cols.all)]
    try:
        answer = await _answer(ctx, query, cols, idx)
    except RunError as e:
        raise QuerySyntaxError(
            f"line {e.line}: {e.message}",
            details={"line": e.line, "column": e.column, "text": e.text},
            hint="An expression read `.x` of null or called a method on the wrong kind of value; `?.` reads null "
            "as null. See docs/bridges.md (tasks_filter, expressions).",
        ) from None
    records, rows = cols.records, answer.rows
    kept = await drop_gone(ctx, list(range(len(answer))), offset, args.limit, lambda k: (records[int(rows[k])].path,))
    total = len(kept)
    positions = kept[offset : offset + args.limit]
    page = answer.placed(positions)
    if not cols.headings_placed:  # the headings of the page's notes, looked up once per set of columns
        notes = sorted({int(cols.note[int(rows[k])]) for k in positions} - cols.heading_notes)
        if notes:
            await _page_headings(ctx, cols.tasks_of_notes(notes))
            cols.heading_notes.update(notes)
    return TasksFilterOut(
        items=[_item(ctx, p) for p in page],
        total=total,
        groups=_groups(answer, kept) if query.groups else [],
        next_cursor=encode_cursor(offset + args.limit, q=state) if offset + args.limit < total else None,
        explain=query.describe() if query.explain else None,
        ignored=query.ignored,
        partial=partial(ctx),
    )


async def _answer(ctx: ToolContext, query: Query, cols: Columns, idx: Ints | None) -> Answer:
    """`run_columns` in a worker thread, at most `QUERIES_AT_ONCE` at a time, under the query's budget
    (counted from when it starts there); a call cancelled meanwhile stops at its next look at the clock."""
    seconds = ctx.services.settings.search.regex_budget_ms / 1000
    budgets: list[Budget] = []

    def work() -> Answer:
        budgets.append(budget := Budget(ctx.services.settings.limits, max_seconds=seconds, what="the Tasks query"))
        if cancelled:
            budget.stop()
        with budget.active():
            return run_columns(query, cols, idx)

    cancelled = False
    try:
        async with _slot():
            return await asyncio.to_thread(work)
    finally:
        cancelled = True
        for budget in budgets:
            budget.stop()


# Queries evaluated at once in a process: the others wait for a slot (their budgets not started), so
# hostile expressions keep at most this many worker threads of the loop's default executor.
QUERIES_AT_ONCE = 2
_slot = LoopSlots(QUERIES_AT_ONCE)


async def _from_index(
    ctx: ToolContext, args: TasksFilterIn, query: Query, plan: _Plan, table: StatusTable, offset: int, state: str
) -> TasksFilterOut:
    records, total = await _page_from_index(ctx, query, plan, table, offset, args.limit)
    found = [Placed((), t) for t in records]
    page = await drop_gone(ctx, found, 0, len(found), lambda p: (p.task.path,))
    total -= len(found) - len(page)
    await _page_headings(ctx, records)
    return TasksFilterOut(
        items=[_item(ctx, p) for p in page],
        total=total,
        next_cursor=encode_cursor(offset + args.limit, q=state) if offset + args.limit < total else None,
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


def _groups(answer: Answer, kept: list[int]) -> list[TaskGroup]:
    """Groups in order with their sizes (recounted when tasks of files gone from disk were dropped)."""
    counts = answer.counts
    if len(kept) != len(answer):
        found = Counter(int(answer.group_of[k]) for k in kept)
        counts = [found.get(g, 0) for g in range(len(answer.names))]
    listed = [(names, n) for names, n in zip(answer.names, counts, strict=True) if n]
    return [TaskGroup(names=list(g), count=n) for g, n in listed[:MAX_GROUPS_LISTED]]


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
        "sort by (urgency too), group by, limit, explain, filter|sort|group by function (a safe subset of its "
        "expressions, never run as JavaScript), presets and {{query.file.path}} placeholders (give `file`); the "
        "plugin's global filter and global query apply. A line it cannot read is query_syntax_error naming the line "
        "and column.",
        input_model=TasksFilterIn,
        output_model=TasksFilterOut,
        handler=tasks_filter,
    ),
)
