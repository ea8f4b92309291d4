"""The Tasks query engine on its own: date phrases, and the SQL a query hands the index agreeing
with its Python tests (the SQL of an exact filter selects exactly the tasks the test keeps; any
other SQL selects at least them), over generated tasks."""

from __future__ import annotations

import json
import random
import sqlite3
from datetime import date

import pytest

from service.markdown import tasks as tk
from service.obsidian.tasks_query import Context, Query, TaskRecord, order_sql, parse_query, run_query
from service.obsidian.tasks_query.dates import parse_span
from service.obsidian.tasks_query.run import base_sorted

TODAY = date(2026, 11, 28)  # a Saturday


@pytest.mark.parametrize(
    ("phrase", "first", "last"),
    [
        ("today", "2026-11-28", "2026-11-28"),
        ("Tomorrow", "2026-11-29", "2026-11-29"),
        ("yesterday", "2026-11-27", "2026-11-27"),
        ("in two weeks", "2026-12-12", "2026-12-12"),
        ("in 1 month", "2026-12-28", "2026-12-28"),
        ("3 days ago", "2026-11-25", "2026-11-25"),
        ("next monday", "2026-11-30", "2026-11-30"),
        ("last saturday", "2026-11-21", "2026-11-21"),
        ("this week", "2026-11-23", "2026-11-29"),
        ("next week", "2026-11-30", "2026-12-06"),
        ("last month", "2026-10-01", "2026-10-31"),
        ("next quarter", "2027-01-01", "2027-03-31"),
        ("this year", "2026-01-01", "2026-12-31"),
        ("2026-W48", "2026-11-23", "2026-11-29"),
        ("2026-02", "2026-02-01", "2026-02-28"),
        ("2026-12-05 2026-12-01", "2026-12-01", "2026-12-05"),
    ],
)
def test_date_phrases_name_spans_of_days(phrase: str, first: str, last: str) -> None:
    span = parse_span(phrase, TODAY)
    assert span is not None and (span[0].isoformat(), span[1].isoformat()) == (first, last)


@pytest.mark.parametrize("phrase", ["someday", "2026-02-30", "in many weeks", "2026-13"])
def test_date_phrases_that_name_no_day_are_none(phrase: str) -> None:
    assert parse_span(phrase, TODAY) is None


COLUMNS = ("due", "scheduled", "start", "done", "created", "cancelled")
QUERIES = [
    "not done",
    "done",
    "due before tomorrow",
    "due on or after next week",
    "starts before today",
    "happens this week",
    "no happens date",
    "has scheduled date",
    "priority is above medium",
    "priority is none",
    "priority is not low",
    "path includes alpha",
    "path does not include alpha",
    "description includes report",
    "tags include #work",
    "NOT (due before today)",
    "(due before today) XOR (priority is high)",
    "(path includes alpha) OR (tags include #work)",
    "NOT ((starts after today) OR (done))",
    "(description includes report) AND NOT (priority is none)",
    "NOT (description includes report)",
    "(happens next week) XOR NOT (has start date)",
    "not done\n(done before 2026-11-20) OR (cancelled after 2026-11-01)",
    "exclude sub-items",
    "NOT (exclude sub-items)",
    "(exclude sub-items) XOR (priority is high)",
]

NO_SQL = {"NOT (description includes report)"}  # the text cut is wider than the description: not negatable


def _records(rng: random.Random) -> list[TaskRecord]:
    days = [None, None, "2026-11-01", "2026-11-27", "2026-11-28", "2026-11-29", "2026-12-02", "2027-01-09"]
    out = []
    for i in range(400):
        status = rng.choice(" x/-?X")
        words = rng.sample(["write", "report", "call", "plan", "#work", "#home", "Report"], 3)
        out.append(
            TaskRecord(
                path=rng.choice(["alpha/One.md", "Beta.md", "ALPHA2.md", "gamma/x.md"]),
                line=i,
                status=status,
                kind=tk.status_type(tk.CORE_STATUSES, status),
                text=" ".join(words),
                **{c: rng.choice(days) for c in COLUMNS},  # type: ignore[arg-type]
                priority=rng.choice([None, *tk.PRIORITY_EMOJI.values()]),
                recurrence=None,
                tags_json=json.dumps([w[1:] for w in words if w.startswith("#")]),
                indent=rng.choice(["", "", "  ", "\t", "> ", ">", ">  ", "> > ", ">\t", "  > ", "> >   "]),
            )  # fmt: skip
        )
    return out


def _database(records: list[TaskRecord]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, path TEXT)")
    conn.execute(
        "CREATE TABLE tasks (id INTEGER PRIMARY KEY, note_id INTEGER, vault_id TEXT, line INTEGER, status TEXT,"
        " text TEXT, due TEXT, scheduled TEXT, start TEXT, done TEXT, created TEXT, cancelled TEXT, priority TEXT,"
        " tags TEXT, recurrence TEXT, indent TEXT)"
    )
    paths = sorted({r.path for r in records})
    conn.executemany("INSERT INTO notes VALUES (?, ?)", list(enumerate(paths)))
    for r in records:
        conn.execute(
            "INSERT INTO tasks VALUES (NULL, ?, 'v', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                paths.index(r.path),
                r.line,
                r.status,
                r.text,
                *(getattr(r, c) for c in COLUMNS),
                r.priority,
                r.tags_json,
                r.recurrence,
                r.indent,
            ),
        )
    return conn


@pytest.mark.parametrize("text", QUERIES)
def test_the_sql_of_a_query_selects_what_its_tests_keep(text: str) -> None:
    records = _records(random.Random(7))
    conn = _database(records)
    query = parse_query(text, Context(TODAY, ("-", "x")))
    kept = {r.line for r in (p.task for p in run_query(query, records))}
    assert kept and len(kept) < len(records), "the generated tasks do not tell this query apart"
    clauses, params = query.sql()
    assert bool(clauses) == (text not in NO_SQL)
    if not clauses:
        return
    where = " AND ".join(f"({c})" for c in clauses)
    rows = conn.execute(f"SELECT t.line FROM tasks t JOIN notes n ON n.id = t.note_id WHERE {where}", params)
    selected = {line for (line,) in rows}
    assert kept <= selected
    if all(f.exact for f in query.filters if f.sql is not None):
        assert selected == kept


@pytest.mark.parametrize(
    "text", [*QUERIES, "tags include /^#w/", "description regex matches /rep/i", "NOT (tags do not include work)"]
)
def test_the_array_form_of_a_query_keeps_what_its_per_task_tests_keep(text: str) -> None:
    records = _records(random.Random(3))
    query = parse_query(text, Context(TODAY, ("-", "x")))
    by_task = {r.line for r in records if all(f.test(r) for f in query.filters)}
    assert {p.task.line for p in run_query(query, records)} == by_task


@pytest.mark.parametrize(
    "text",
    [
        "not done",
        "sort by due",
        "sort by priority reverse\nsort by path",
        "sort by status\nsort by scheduled reverse\nsort by recurring",
        "sort by status.type reverse\nsort by done",
        "sort by description\nsort by due reverse",
        "sort by happens",
        "sort by urgency",
        "sort by urgency reverse\nsort by path",
        "sort by priority\nsort by urgency",
    ],
)
def test_the_index_orders_tasks_as_the_python_sort_does(text: str) -> None:
    records = _records(random.Random(11))
    for i, r in enumerate(records):  # several tasks a line number apart in the same note
        r.line = i // 3
    conn = _database(records)
    query = parse_query(text, Context(TODAY))
    order, params, python_sorts = order_sql(query, {c: kind for c, (kind, _) in tk.CORE_STATUSES.items()})
    rows = conn.execute(f"SELECT n.path, t.id FROM tasks t JOIN notes n ON n.id = t.note_id ORDER BY {order}", params)
    from_index = [id(records[i - 1]) for _, i in rows]
    in_python = Query(today=TODAY) if python_sorts else query  # keys the index cannot order: default order
    in_order = [id(p.task) for p in run_query(in_python, records)]
    kept = set(in_order)  # the query's filters are the Python side's; the index orders every task
    assert [i for i in from_index if i in kept] == in_order


def test_records_come_from_the_index_in_the_base_order_the_columns_assume() -> None:
    records = _records(random.Random(5))
    conn = _database(records)
    order, params, _ = order_sql(Query(), {c: kind for c, (kind, _) in tk.CORE_STATUSES.items()}, base=True)
    rows = conn.execute(f"SELECT t.id FROM tasks t JOIN notes n ON n.id = t.note_id ORDER BY {order}", params)
    assert [id(records[i - 1]) for (i,) in rows] == [id(t) for t in base_sorted(records)]


def _task(**fields: str) -> TaskRecord:
    dates = {c: fields.get(c) for c in COLUMNS}
    return TaskRecord("a.md", 0, " ", "todo", fields.get("text", "t"), **dates, priority=fields.get("priority"),
                      recurrence=None, tags_json="[]")  # type: ignore[arg-type]  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "score"),
    [
        ({"due": "2026-11-28", "priority": "medium"}, 8.8 + 3.9),  # due today (the table's 8.8), medium
        ({"priority": "high", "scheduled": "2026-11-27", "start": "2026-11-27"}, 11.0),
        ({"priority": "high", "scheduled": "2026-11-29", "start": "2026-11-29"}, 3.0),
        ({"due": "2026-11-01"}, 12.0 + 1.95),  # more than 7 days late: 12
        ({"due": "2027-01-01", "priority": "lowest"}, 2.4 - 1.8),  # more than 14 days ahead: 2.4
        ({"due": "2026-11-29"}, 8.8 - 3.2 / 7 + 1.95),  # one day ahead
        ({"due": "2026-02-30"}, 1.95),  # not a day: no due date
        ({}, 1.95),
    ],
)
def test_urgency_scores_follow_the_documented_table(fields: dict[str, str], score: float) -> None:
    from service.obsidian.tasks_query.columns import URGENCY_SCALE, Columns

    assert Columns([_task(**fields)]).urgency(TODAY)[0] / URGENCY_SCALE == pytest.approx(score)


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("task.description + '!' + 1", "write report #proj/alpha!1"),
        ("1 + 2 * 3 - 4 / 2", 5.0),
        ("task.priorityNumber == 1 ? 'high' : 'other'", "high"),
        ("task.due.formatAsDate() + '|' + task.start.formatAsDate()", "2026-11-30|"),
        ("task.due.moment.diff(moment(), 'days')", 2),
        ("moment().add(1, 'week').format('dddd, DD/MM')", "Saturday, 05/12"),
        ("task.start.moment?.isAfter(moment())", None),
        ("!task.isRecurring && task.tags.length === 1 && task.tags.join()", "#proj/alpha"),
        ("task.file.filenameWithoutExtension.toUpperCase()", "WORK"),
        ("null || undefined || 0 || ''", ""),
    ],
)
def test_expressions_follow_javascript_for_what_they_read(expression: str, value: object) -> None:
    from service.obsidian.tasks_query.columns import urgency_of
    from service.obsidian.tasks_query.expressions import Scope, compile_expression

    task = _task(text="write report #proj/alpha", due="2026-11-30", priority="high")
    task.tags_json, task.path = '["proj/alpha"]', "Work.md"
    result = compile_expression(expression, 1, 64)(Scope(task, TODAY, urgency_of))
    assert result == value and type(result) is type(value)


@pytest.mark.parametrize(
    "expression",
    [
        "task.__class__",
        "task.description.__len__()",
        "().x",
        "[1].constructor",  # an array literal reads (s74, as in JavaScript); nothing beyond it does
        "globalThis",
        "task['due']",
        "!" * 500 + "true",
        "moment().add(1e9, 'days')",
    ],  # fmt: skip
)
def test_expressions_reach_nothing_but_the_task(expression: str) -> None:
    from service.obsidian.tasks_query.columns import urgency_of
    from service.obsidian.tasks_query.expressions import ExpressionError, Scope, compile_expression

    with pytest.raises(ExpressionError):
        compile_expression(expression, 1, 64)(Scope(_task(), TODAY, urgency_of))
