"""Runs one view of a base over a snapshot: filter, sort, limit, group, columns, summaries.

The rows are the snapshot's records (already cut to what the caller may read) for which the
base's `filters` and the view's `filters` are both true (an evaluation error there leaves the row
out and is reported). They are sorted by the view's `sort` keys (empty values last), cut to its
`limit`, then grouped by `groupBy` (groups ordered by their value, in the given direction; rows
keep their order inside a group). Columns are the view's `order` (or `file.name`); each cell is
read like an expression (`note.x`, `file.x`, `formula.x`, bare `x`). Summaries are computed per
column for all rows and per group. Errors in cells become null values plus an entry in
`errors` (where: the formula or column, the note, the message), at most `MAX_ERRORS`.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from service.bases.env import Context, Env, Fn, property_column, read_property
from service.bases.evaluate import compile_expr
from service.bases.model import BaseFile, Filter, SortKey, View
from service.bases.parser import ExprSyntaxError, parse
from service.bases.snapshot import Record, Snapshot
from service.bases.summaries import summarize
from service.bases.values import EvalError, cell, identity, sort_key, truthy
from service.budget import held_size
from service.errors import ValidationFailed
from service.gcpause import paused

MAX_ERRORS = 20
_UNSET: Any = object()  # a column value not computed yet
_EMPTY = 9  # the rank `sort_key` gives empty values


@dataclass(slots=True)
class Row:
    record: Record
    env: Env
    i: int  # the record's position in the snapshot: where its values sit in each column
    group: int | None = None


@dataclass(slots=True)
class Group:
    key: Any
    rows: list[Row]
    summaries: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Result:
    view: View
    columns: list[tuple[str, str]]  # (id, display name)
    rows: list[Row]
    groups: list[Group] | None
    summaries: dict[str, Any]
    matched: int
    errors: list[dict[str, Any]]
    runner: _Run

    def cells(self, rows: list[Row]) -> list[dict[str, Any]]:
        """The view's column values of `rows` (one page): columns are computed only for the rows
        returned, unless sorting, grouping or a summary needed them for every row."""
        ids = [c for c, _ in self.columns]
        with paused(), self.runner.ctx.budget.active():
            cols = [self.runner.fill(c, rows) for c in ids]
        return [{c: col[row.i] for c, col in zip(ids, cols, strict=True)} for row in rows]


def pick_view(base: BaseFile, name: str | None) -> View:
    if name is None:
        return base.views[0] if base.views else View("table", "", None, None, [], [], None, {})
    for v in base.views:
        if v.name == name:
            return v
    raise ValidationFailed(
        f"the base has no view named {name!r}",
        details={"field": "view", "views": [v.name for v in base.views]},
        hint="Pass one of the listed view names, or omit `view` for the first view.",
    )


_IDENT = re.compile(r"[A-Za-z_$\u00C0-\uFFFF][\w$\u00C0-\uFFFF]*")
_RESERVED = frozenset({"file", "note", "formula", "this", "true", "false", "null", "values"})


def _plain_property(column: str) -> str | None:
    """The property key when a column is a note property (`x` or `note.x`), else None."""
    key = column[5:] if column.startswith("note.") else column
    if _IDENT.fullmatch(key) and (column.startswith("note.") or key not in _RESERVED):
        return key
    return None


@functools.lru_cache(maxsize=512)
def column_fn(column: str) -> Fn:
    """How a column id (`note.x`, `file.x`, `formula.x`, `x`, any expression) is read."""
    try:
        return compile_expr(parse(column))
    except ExprSyntaxError:
        key = column.removeprefix("note.")
        return lambda env: read_property(env.rec, key, env.ctx.snapshot) if env.rec is not None else None


# An error of one cell or one filter statement, reported in `errors` (the row goes on): a value
# the expression cannot take (EvalError), an infinite number where an integer is needed
# ("x".repeat(1e300 * 1e300), .round() of infinity: OverflowError), nesting Python cannot hold.
_CELL_ERRORS = (EvalError, OverflowError, RecursionError)


class _Run:
    def __init__(self, base: BaseFile, ctx: Context) -> None:
        self.base = base
        self.ctx = ctx
        self.errors: list[dict[str, Any]] = []
        self.columns: dict[str, Fn] = {}
        self.cols: dict[str, list[Any]] = {}  # column id -> values by record position (see `fill`)

    def error(self, at: str, rec: Record | None, exc: Exception) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append({"at": at, "path": rec.path if rec else None, "message": str(exc)})

    def compile(self, flt: Filter) -> Callable[[Env], bool]:
        """One closure for a filter tree; an evaluation error makes its statement false."""
        if flt.op == "expr":
            fn, at = flt.fn, flt.at
            assert fn is not None

            def statement(env: Env) -> bool:
                budget = env.ctx.budget
                before = budget.held  # what the statement builds is given back (formulas it reads stay kept)
                try:
                    v = fn(env)
                    return v if v is True or v is False else truthy(v)
                except _CELL_ERRORS as exc:
                    self.error(at, env.rec, exc)
                    return False
                finally:
                    budget.held = before

            return statement
        parts = [self.compile(c) for c in flt.children]
        if flt.op == "and":
            return lambda env: all(p(env) for p in parts)
        if flt.op == "or":
            return lambda env: any(p(env) for p in parts)
        return lambda env: not any(p(env) for p in parts)  # not: none of them is true

    def fill(self, column: str, rows: list[Row]) -> list[Any]:
        """The column's values for `rows`, computed once: the column list is indexed by `Row.i`
        (the record's place in the snapshot). A note property is the snapshot's own column, read
        once per snapshot and shared by every query; other columns are computed per row."""
        col = self.cols.get(column)
        key = _plain_property(column) if col is None else None
        if key is not None:  # a note property: no work per row at all
            col = self.cols[column] = property_column(self.ctx.snapshot, key)
            return col
        if col is None:
            col = self.cols[column] = [_UNSET] * len(self.ctx.snapshot.records)
        fn = self.columns.get(column)
        if fn is None:
            fn = self.columns[column] = column_fn(column)
        budget, formula = self.ctx.budget, column.startswith("formula.")
        for row in rows:
            i = row.i
            if col[i] is _UNSET:
                before = budget.held
                try:
                    col[i] = fn(row.env)
                except _CELL_ERRORS as exc:
                    self.error(column, row.record, exc)
                    col[i] = None
                budget.held = before  # what the cell built is given back, its value kept with the column
                if not formula:  # (a formula's value is kept once, with its row: `Env.formula`)
                    budget.keep(held_size(col[i]))
        return col


def _select(r: _Run, filters: list[Filter], snapshot: Snapshot, ctx: Context) -> list[Row]:
    tests = [r.compile(f) for f in filters]
    test: Callable[[Env], bool] = tests[0] if len(tests) == 1 else (lambda env: all(t(env) for t in tests))
    rows: list[Row] = []
    records = snapshot.records
    if not tests:
        ctx.spend(len(records))
        return [Row(rec, Env(ctx, rec), i) for i, rec in enumerate(records)]
    candidates: Iterable[int] = range(len(records))
    equality = _text_equality(filters)
    if equality is not None:  # `prop == "text"`: text values are compared in one pass over the column
        key, literal = equality
        col = property_column(snapshot, key)
        ctx.spend(len(records))
        hits = [i for i, v in enumerate(col) if v is not None and (v == literal or type(v) is not str)]
        candidates = [i for i in hits if type(col[i]) is not str]  # other types: the statement decides
        rows = [Row(records[i], Env(ctx, records[i]), i) for i in hits if type(col[i]) is str]
    env = Env(ctx, None)
    append = rows.append
    for i in candidates:
        rec = records[i]
        if not i & 255:
            ctx.spend(256)
        env.rec = rec
        if test(env):
            append(Row(rec, env, i))
            env = Env(ctx, None)
        elif env.fcache:
            env.fcache = {}
    if equality is not None:
        rows.sort(key=_position)  # record order, as without the shortcut
    return rows


_EQUALS_TEXT = re.compile(r"""\s*((?:note\.)?[A-Za-z_]\w*)\s*==\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*""")
_position = operator.attrgetter("i")


def _text_equality(filters: list[Filter]) -> tuple[str, str] | None:
    """(key, text) when the only filter is `key == "text"` on a note property, else None."""
    if len(filters) != 1 or filters[0].op != "expr":
        return None
    m = _EQUALS_TEXT.fullmatch(filters[0].source)
    key = _plain_property(m.group(1)) if m else None
    if m is None or key is None:
        return None
    return key, m.group(2) if m.group(2) is not None else m.group(3)


def _sort(r: _Run, rows: list[Row], keys: list[SortKey]) -> list[Row]:
    """Stable multi-key sort, last key first; empty values last in both directions."""
    for key in reversed(keys):
        col = r.fill(key.prop, rows)
        present: list[tuple[Any, Row]] = []
        empty: list[Row] = []
        kinds: set[type] = set()
        for row in rows:
            v = col[row.i]
            t = type(v)
            if v is None or ((t is str or t is list or t is dict) and not v):
                empty.append(row)
            else:
                present.append((v, row))
                kinds.add(t)
        if kinds and kinds <= {int, float}:  # plain numbers: the value itself
            present.sort(key=_first, reverse=key.descending)
        elif kinds == {str}:
            present = [(s.lower(), s, row) for s, row in present]  # type: ignore[misc]
            present.sort(key=_two, reverse=key.descending)
        else:
            present = [(sort_key(v), row) for v, row in present]
            present.sort(key=_first, reverse=key.descending)
        rows = [p[-1] for p in present]
        rows += empty
    return rows


_first = operator.itemgetter(0)
_two = operator.itemgetter(0, 1)


def run(base: BaseFile, view: View, snapshot: Snapshot, ctx: Context) -> Result:
    with paused(), ctx.budget.active():
        return _run(base, view, snapshot, ctx)


def _run(base: BaseFile, view: View, snapshot: Snapshot, ctx: Context) -> Result:
    ctx.formulas = base.formulas
    r = _Run(base, ctx)
    rows = _select(r, [f for f in (base.filters, view.filters) if f is not None], snapshot, ctx)
    matched = len(rows)
    rows = _sort(r, rows, view.sort)
    if view.limit is not None:
        rows = rows[: view.limit]
    columns = view.order or ["file.name"]
    ctx.spend(len(rows))
    groups: list[Group] | None = None
    if view.group_by is not None:
        groups, rows = _group(r, rows, view.group_by)
    summaries: dict[str, Any] = {}
    base_env = Env(ctx, None)
    for column, name in view.summaries.items():
        col = r.fill(column, rows)
        values = [col[row.i] for row in rows]
        summaries[column] = _summary(r, name, values, base_env)
        start = 0
        for g in groups or []:  # a group's rows are consecutive in `rows`
            g.summaries[column] = _summary(r, name, values[start : start + len(g.rows)], base_env)
            start += len(g.rows)
    names = [(c, base.display_names.get(c) or base.display_names.get(_alias(c)) or c) for c in columns]
    return Result(view, names, rows, groups, summaries, matched, r.errors, r)


def _group(r: _Run, rows: list[Row], by: SortKey) -> tuple[list[Group], list[Row]]:
    buckets: dict[Any, Group] = {}
    col = r.fill(by.prop, rows)
    for row in rows:
        key = col[row.i]
        bucket_key = key if type(key) is str else identity(key)
        group = buckets.get(bucket_key)
        if group is None:
            group = buckets[bucket_key] = Group(key, [])
        group.rows.append(row)
    groups = sorted(buckets.values(), key=lambda g: sort_key(g.key), reverse=by.descending)
    if by.descending:
        groups.sort(key=lambda g: sort_key(g.key)[0] == _EMPTY)
    ordered: list[Row] = []
    for i, g in enumerate(groups):
        for row in g.rows:
            row.group = i
        ordered.extend(g.rows)
    return groups, ordered


def _alias(column: str) -> str:
    """`note.x` and `x` name the same property in `properties`."""
    if column.startswith("note."):
        return column[5:]
    return column if "." in column else "note." + column


def _summary(r: _Run, name: str, values: list[Any], env: Env) -> Any:
    try:
        return summarize(name, values, r.base.summaries, env)
    except (*_CELL_ERRORS, TypeError, ValueError) as exc:
        r.error(f"summaries.{name}", None, exc)
        return {"summary": name, "value": cell(None)}
