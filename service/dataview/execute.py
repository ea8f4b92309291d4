"""Running a parsed query over one caller's `View` of the pages.

FROM picks pages (tags with their nested children, folders or files, pages linking to a
[[link]], the pages a note links to with outgoing(), combined with and/or/negation); a TASK
query then works on the tasks of those pages (each inheriting its page's fields). The data
commands run in the order written: WHERE filters, SORT orders (stable, several keys), GROUP BY
turns rows into `{key, rows}`, FLATTEN makes one row per list element, LIMIT cuts. Every row
of every command costs one budget step. The result is JSON-ready rows with typed values.
Touches nothing outside itself.
"""

from __future__ import annotations

import functools
from collections import ChainMap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from service.dataview.evaluate import Budget, Context, compile_expr, returns_bool
from service.dataview.items import FileFields, Inherited
from service.dataview.query import Column, Query
from service.dataview.syntax import Node
from service.dataview.values import Link, SortKey, compare, to_json, truthy, type_of, typed
from service.dataview.view import View
from service.gcpause import paused

Row = Mapping[str, Any]


@dataclass(slots=True)
class Result:
    """The rows of a query, rendered one page at a time (`render`): a result of thousands of rows
    costs JSON only for the rows returned."""

    kind: str
    columns: list[str]
    rows: list[Row] = field(default_factory=list)
    grouped: bool = False
    render: Callable[[Row], dict[str, Any]] = dict
    paths: Callable[[Row], list[str]] = lambda row: []


def sources(node: Node | None, view: View, this: str | None) -> list[str]:
    everything = view.paths()
    if node is None:
        return everything
    chosen = _source(node, view, set(everything), this)
    return [p for p in everything if p in chosen]


def _source(node: Node, view: View, universe: set[str], this: str | None) -> set[str]:
    kind = node[0]
    if kind == "and":
        return _source(node[1], view, universe, this) & _source(node[2], view, universe, this)
    if kind == "or":
        return _source(node[1], view, universe, this) | _source(node[2], view, universe, this)
    if kind == "not":
        return universe - _source(node[1], view, universe, this)
    if kind == "tag":
        tag = node[1].lower()
        return {p for p in universe if view.set.pages[p].has_tag(tag)}
    if kind == "path":
        raw = node[1].strip().strip("/")
        exact = {c for c in (raw, raw + ".md") if c in universe}
        if exact:
            return exact
        prefix = raw + "/" if raw else ""
        return {p for p in universe if p.startswith(prefix)}
    target = this if not node[1].path else view.resolve_path(node[1].path)
    if target is None or target not in universe:
        return set()
    if kind == "link":
        return {p for p in view.set.inlinks(target) if p in universe}
    return {p for p in view.set.outlinks(target) if p in universe}  # outgoing


def run(query: Query, view: View, budget: Budget, this: str | None = None) -> Result:
    try:
        with paused(), budget.active():
            return _run(query, view, budget, this)
    except RecursionError:  # a chain of thousands of operators: compiled closures nest as deep
        from service.errors import QuerySyntaxError

        raise QuerySyntaxError("the query's expressions nest too deeply to evaluate") from None


def _run(query: Query, view: View, budget: Budget, this: str | None) -> Result:
    this_row = view.row(this) if this else None
    ctx = Context(budget, view.row_of, view.resolve, this_row)
    rows: list[Row] = []
    pages = view.rows(sources(query.source, view, this))
    if query.kind == "TASK":
        for page in pages:
            file = page["file"]
            rows.extend(file.task_rows(page) if isinstance(file, FileFields) else [])
    else:
        rows = pages
    grouped = False
    for name, arg in query.commands:
        budget.spend(len(rows) + 1)
        if name == "WHERE":
            test = compile_expr(arg, ctx)
            rows = [r for r in rows if test(r)] if returns_bool(arg) else [r for r in rows if truthy(test(r))]
        elif name == "SORT":
            rows = _sort(rows, [(compile_expr(e, ctx), d) for e, d in arg])
        elif name == "GROUP":
            rows = _group(rows, arg, ctx)
            grouped = True
        elif name == "FLATTEN":
            rows = _flatten(rows, arg, ctx)
        elif name == "LIMIT":
            n = compile_expr(arg, ctx)({})
            if not isinstance(n, (int, float)) or isinstance(n, bool) or n < 0:
                from service.errors import QuerySyntaxError

                raise QuerySyntaxError("LIMIT takes a non-negative number", details={"limit": to_json(n)})
            rows = rows[: int(n)]
    return _render(query, rows, grouped, ctx, view)


def _sort(rows: list[Row], keys: list[tuple[Callable[[Row], Any], bool]]) -> list[Row]:
    decorated = [(tuple(k(r) for k, _ in keys), r) for r in rows]

    def cmp(a: tuple[tuple[Any, ...], Row], b: tuple[tuple[Any, ...], Row]) -> int:
        for (x, y), (_, desc) in zip(zip(a[0], b[0], strict=True), keys, strict=True):
            c = compare(x, y)
            if c:
                return -c if desc else c
        return 0

    decorated.sort(key=functools.cmp_to_key(cmp))
    return [r for _, r in decorated]


_PLAIN = (str, int, float, bool)


def _group(rows: list[Row], col: Column, ctx: Context) -> list[Row]:
    key_of = compile_expr(col.expr, ctx)
    groups: dict[Any, tuple[Any, list[Row]]] = {}
    for row in rows:
        key = key_of(row)
        marker = (type(key), key) if key is None or type(key) in _PLAIN else (type_of(key), repr(to_json(key)))
        groups.setdefault(marker, (key, []))[1].append(row)
    ordered = sorted(groups.values(), key=lambda kv: SortKey(kv[0]))
    return [{col.name: key, "key": key, "rows": members} for key, members in ordered]


def _flatten(rows: list[Row], col: Column, ctx: Context) -> list[Row]:
    value_of = compile_expr(col.expr, ctx)
    out: list[Row] = []
    for row in rows:
        value = value_of(row)
        for item in value if isinstance(value, list) else [value]:  # an empty list leaves no row
            out.append(ChainMap({col.name: item}, row))  # type: ignore[arg-type]
    ctx.budget.spend(len(out))
    return out


def _id(row: Row, grouped: bool) -> Any:
    if grouped:
        return row.get("key")
    file = row.get("file")
    return file.get("link") if isinstance(file, Mapping) else None


def _path(row: Row, grouped: bool) -> str | None:
    ident = _id(row, grouped)
    return ident.path if isinstance(ident, Link) and not grouped else None


def _render(query: Query, rows: list[Row], grouped: bool, ctx: Context, view: View) -> Result:
    cells = [(c.name, compile_expr(c.expr, ctx)) for c in query.columns]
    if query.kind == "TASK":
        if grouped:
            return Result(
                "TASK", [], rows, grouped,
                render=lambda r: {"id": typed(r["key"]), "tasks": [_task(t) for t in r["rows"]]},
                paths=lambda r: [t["path"] for t in r["rows"]],
            )  # fmt: skip
        return Result("TASK", [], rows, grouped, render=_task, paths=lambda r: [r["path"]])
    page_paths: Callable[[Row], list[str]] = lambda r: [p] if (p := _path(r, grouped)) else []  # noqa: E731
    if query.kind == "CALENDAR":
        name, date_of = cells[0]
        dated = [(r, when) for r in rows if type_of(when := date_of(r)) == "date"]
        return Result(
            "CALENDAR", [name], [{"row": r, "date": when} for r, when in dated], grouped,
            render=lambda d: {"path": _path(d["row"], grouped), "id": typed(_id(d["row"], grouped)),
                              "date": to_json(d["date"])},
            paths=lambda d: page_paths(d["row"]),
        )  # fmt: skip
    id_name = "Group" if grouped else "File"  # Dataview's default column names
    columns = ([] if query.without_id else [id_name]) + [n for n, _ in cells]

    def render(r: Row) -> dict[str, Any]:
        ctx.budget.spend(len(cells) + 1)
        item: dict[str, Any] = {"path": _path(r, grouped)}
        if not query.without_id:
            item["id"] = typed(_id(r, grouped))
        with ctx.budget.active():
            if query.kind == "LIST":
                if cells:
                    item["value"] = typed(cells[0][1](r))
            else:
                item["cells"] = [typed(fn(r)) for _, fn in cells]
        return item

    return Result(query.kind, columns, rows, grouped, render=render, paths=page_paths)


def _task(row: Row) -> dict[str, Any]:
    return {
        "path": row.get("path"),
        "line": row.get("line"),
        "text": row.get("text"),
        "status": row.get("status"),
        "completed": row.get("completed"),
        "checked": row.get("checked"),
        "fully_completed": row.get("fullyCompleted"),
        "parent": row.get("parent"),
        "fields": {k: typed(v) for k, v in _task_fields(row).items()},
    }


_TASK_KEYS = frozenset(
    {"text", "visual", "line", "lineCount", "path", "link", "section", "tags", "outlinks", "children", "task"}
    | {"annotated", "parent", "blockId", "status", "checked", "completed", "fullyCompleted"}
)


def _task_fields(row: Row) -> dict[str, Any]:
    while isinstance(row, ChainMap):  # a FLATTENed task
        row = row.maps[-1]
    own = dict.items(row) if isinstance(row, Inherited) else row.items()
    return {k: v for k, v in own if k not in _TASK_KEYS}
