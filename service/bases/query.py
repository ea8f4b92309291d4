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
from dataclasses import dataclass, field
from typing import Any

from service.bases.env import Context, Env, Fn, read_property
from service.bases.evaluate import compile_expr
from service.bases.model import BaseFile, Filter, View
from service.bases.parser import ExprSyntaxError, parse
from service.bases.snapshot import Record, Snapshot
from service.bases.summaries import summarize
from service.bases.values import EvalError, cell, sort_key, to_string
from service.errors import ValidationFailed

MAX_ERRORS = 20


@dataclass(slots=True)
class Row:
    record: Record
    env: Env
    values: dict[str, Any] = field(default_factory=dict)
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


@functools.lru_cache(maxsize=512)
def column_fn(column: str) -> Fn:
    """How a column id (`note.x`, `file.x`, `formula.x`, `x`, any expression) is read."""
    try:
        return compile_expr(parse(column))
    except ExprSyntaxError:
        key = column.removeprefix("note.")
        return lambda env: read_property(env.rec, key, env.ctx.snapshot) if env.rec is not None else None


class _Run:
    def __init__(self, base: BaseFile, ctx: Context) -> None:
        self.base = base
        self.ctx = ctx
        self.errors: list[dict[str, Any]] = []

    def error(self, at: str, rec: Record | None, exc: Exception) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append({"at": at, "path": rec.path if rec else None, "message": str(exc)})

    def test(self, flt: Filter, env: Env) -> bool:
        if flt.op == "expr":
            assert flt.fn is not None
            try:
                from service.bases.values import truthy

                return truthy(flt.fn(env))
            except (EvalError, RecursionError) as exc:
                self.error(flt.at, env.rec, exc)
                return False
        if flt.op == "and":
            return all(self.test(c, env) for c in flt.children)
        if flt.op == "or":
            return any(self.test(c, env) for c in flt.children)
        return not any(self.test(c, env) for c in flt.children)  # not: none of them

    def value(self, column: str, env: Env) -> Any:
        try:
            return column_fn(column)(env)
        except (EvalError, RecursionError) as exc:
            self.error(column, env.rec, exc)
            return None


def run(base: BaseFile, view: View, snapshot: Snapshot, ctx: Context) -> Result:
    ctx.formulas = base.formulas
    r = _Run(base, ctx)
    filters = [f for f in (base.filters, view.filters) if f is not None]
    rows: list[Row] = []
    spend = ctx.spend
    for rec in snapshot.records:
        spend()
        env = Env(ctx, rec)
        if all(r.test(f, env) for f in filters):
            rows.append(Row(rec, env))
    matched = len(rows)
    for key in reversed(view.sort):
        rows.sort(key=lambda row, k=key.prop: sort_key(r.value(k, row.env)), reverse=key.descending)  # type: ignore[misc]
        if key.descending:  # empty values stay last in both directions
            rows.sort(key=lambda row, k=key.prop: sort_key(r.value(k, row.env))[0] == 9)  # type: ignore[misc]
    if view.limit is not None:
        rows = rows[: view.limit]
    columns = view.order or ["file.name"]
    for row in rows:
        spend()
        row.values = {c: r.value(c, row.env) for c in columns}
    groups: list[Group] | None = None
    if view.group_by is not None:
        prop = view.group_by.prop
        buckets: dict[str, Group] = {}
        for row in rows:
            key = r.value(prop, row.env)
            bucket_key = to_string(cell(key))
            if bucket_key not in buckets:
                buckets[bucket_key] = Group(key, [])
            buckets[bucket_key].rows.append(row)
        groups = sorted(buckets.values(), key=lambda g: sort_key(g.key), reverse=view.group_by.descending)
        if view.group_by.descending:
            groups.sort(key=lambda g: sort_key(g.key)[0] == 9)
        ordered: list[Row] = []
        for i, g in enumerate(groups):
            for row in g.rows:
                row.group = i
            ordered.extend(g.rows)
        rows = ordered
    summaries: dict[str, Any] = {}
    base_env = Env(ctx, None)
    for column, name in view.summaries.items():
        summaries[column] = _summary(r, column, name, rows, base_env)
        for g in groups or []:
            g.summaries[column] = _summary(r, column, name, g.rows, base_env)
    names = [(c, base.display_names.get(c) or base.display_names.get(_alias(c)) or c) for c in columns]
    return Result(view, names, rows, groups, summaries, matched, r.errors)


def _alias(column: str) -> str:
    """`note.x` and `x` name the same property in `properties`."""
    if column.startswith("note."):
        return column[5:]
    return column if "." in column else "note." + column


def _summary(r: _Run, column: str, name: str, rows: list[Row], env: Env) -> Any:
    values = [row.values[column] if column in row.values else r.value(column, row.env) for row in rows]
    try:
        return summarize(name, values, r.base.summaries, env)
    except (EvalError, TypeError, ValueError) as exc:
        r.error(f"summaries.{name}", None, exc)
        return {"summary": name, "value": cell(None)}
