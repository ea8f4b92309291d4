"""Running a parsed query over one caller's `View` of the pages.

FROM picks pages (tags with their nested children, folders or files, pages linking to a
[[link]], the pages a note links to with outgoing(), combined with and/or/negation); a TASK
query then works on the tasks of those pages (each inheriting its page's fields). The data
commands run in the order written: WHERE filters, SORT orders (stable, several keys), GROUP BY
turns rows into `{key, rows}`, FLATTEN makes one row per list element, LIMIT cuts. Every row
of every command costs one budget step (as before), and each phase also looks at the clock as
it goes, per row, list item, task and comparison of a sort (`Budget.look`, no steps), so the
deadline is looked at inside each phase (a FLATTEN ... SORT over 10^5 notes sorted on for
30 s past a 10 s budget), and a budget stopped from outside (`Budget.stop`: the call was
cancelled) ends the query at its next look. A TASK query reads the tasks page by page, its
leading WHEREs applied as it goes, and keeps only the tasks that pass; with nothing after those
but one SORT or GROUP BY and LIMITs it keeps not even those, only (path, page, index) of each
(beside its SORT keys, in its group), and a page of the result is built again when rendered
(`Result.rendered`): TASK over 10^5 notes (397,414 tasks) held every task's row. A plain TASK
reads only (line, text) of each task (`FileFields.task_marks`), as does a TASK SORT by those
alone (`_marked`). Touches nothing outside itself.
"""

from __future__ import annotations

import functools
import heapq
import itertools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from service.dataview.evaluate import Budget, Context, can_fail, compile_expr, per_row, returns_bool
from service.dataview.failed import Failed, evaluated
from service.dataview.flat import Flat
from service.dataview.items import FileFields, scope
from service.dataview.ops import NoImplementation
from service.dataview.plainsort import sorted_plainly
from service.dataview.query import Column, Query
from service.dataview.size import Answer, counted_task
from service.dataview.syntax import Node
from service.dataview.task_groups import group_paths, render_group, task_fields, task_path
from service.dataview.values import Link, compare, to_json, truthy, type_of, typed
from service.dataview.view import View
from service.errors import Conflict
from service.gcpause import paused

Row = Mapping[str, Any]


@dataclass(slots=True)
class Result:
    """The rows of a query, rendered one page at a time (`render`): a result of thousands of rows
    costs JSON only for the rows returned."""

    kind: str
    columns: list[str]
    rows: list[Any] = field(default_factory=list)  # rows, or (path, page, index) of TASK rows (`_task_refs`)
    grouped: bool = False
    render: Callable[[Any], dict[str, Any]] = dict
    paths: Callable[[Any], list[str]] = lambda row: []
    budget: Budget | None = None

    def rendered(
        self, window: list[Any], max_bytes: int | None = None, url: Callable[[str], str] | None = None
    ) -> list[dict[str, Any]]:
        """`window` (rows of `rows`) as JSON, under the query's budget, collector pause and item
        scope; with `max_bytes`, `overflow` as soon as what is rendered (with the `url` of each
        path the tool adds) is longer than that as compact JSON, a TASK group's tasks counted one
        by one (`size.Answer`)."""
        answer = Answer(max_bytes, url)
        with paused(), scope(), answer.active():
            if self.budget is None:
                return [answer.add(self.render(row)) for row in window]
            with self.budget.active():
                return [answer.add(self.render(row)) for row in window]


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
    if target is None and node[1].path:  # no such note: the pages linking to it as written, for
        # outgoing() too (resolver.ts matchingSourcePaths: no file, `index.links.getInverse` either way)
        return {p for p in view.linking_to_written(node[1].path) if p in universe}
    if target is None or target not in universe:
        return set()
    if kind == "link":
        return {p for p in view.set.inlinks(target) if p in universe}
    return {p for p in view.set.outlinks(target) if p in universe}  # outgoing


def run(query: Query, view: View, budget: Budget, this: str | None = None) -> Result:
    try:
        with paused(), budget.active(), scope():
            return _run(query, view, budget, this)
    except RecursionError:  # a chain of thousands of operators: compiled closures nest as deep
        from service.errors import QuerySyntaxError

        raise QuerySyntaxError("the query's expressions nest too deeply to evaluate") from None


def _run(query: Query, view: View, budget: Budget, this: str | None) -> Result:
    this_row = view.row(this) if this else None
    ctx = Context(budget, view.row_of, view.resolve, this_row)
    pages = view.rows(sources(query.source, view, this))
    commands = query.commands
    if query.kind == "TASK":
        lead = next((i for i, (name, _) in enumerate(commands) if name != "WHERE"), len(commands))
        tests = [_test(arg, ctx) for _, arg in commands[:lead]]
        commands = commands[lead:]
        lean = commands[1:] if commands and commands[0][0] in ("SORT", "GROUP") else commands
        if all(name == "LIMIT" for name, _ in lean):
            return _task_refs(pages, tests, commands, ctx)
        rows: list[Row] = [task for _page, _at, task in _tasks(pages, tests, budget)]
    else:
        rows = pages
    grouped = False
    for name, arg in commands:
        budget.spend(len(rows) + 1)
        if name == "WHERE":
            test, failed = _test(arg, ctx), Failed("where", len(rows))
            rows = [r for passed, r in evaluated(rows, test, failed, budget.look) if passed]
        elif name == "SORT":
            rows = _sort(rows, [(per_row(e, ctx, kept=True), d) for e, d in arg], budget)
        elif name == "GROUP":
            rows = _group(rows, arg, ctx)
            grouped = True
        elif name == "FLATTEN":
            rows = _flatten(rows, arg, ctx)
        elif name == "LIMIT":
            rows = rows[: _limit(arg, ctx)]
    return _render(query, rows, grouped, ctx, view)


def _test(arg: Node, ctx: Context) -> Callable[[Row], bool]:
    """A WHERE condition as a predicate."""
    test = per_row(arg, ctx)
    if returns_bool(arg):
        return cast(Callable[[Row], bool], test)
    return lambda r: truthy(test(r))


def _limit(arg: Node, ctx: Context) -> int:
    n = compile_expr(arg, ctx)({})
    if not isinstance(n, (int, float)) or isinstance(n, bool) or n < 0:
        from service.errors import QuerySyntaxError

        raise QuerySyntaxError("LIMIT takes a non-negative number", details={"limit": to_json(n)})
    return int(n)


def _tasks(pages: list[Row], tests: list[Callable[[Row], bool]], budget: Budget) -> Iterator[tuple[Row, int, Row]]:
    """(page, index among its tasks, task) of every task of `pages` that passes `tests`, read
    one page at a time; a task a test fails on is left out (`Failed`, checked once all are read)."""
    failed = [Failed("where") for _ in tests]
    for page in pages:
        file = page["file"]
        tasks = file.task_rows(page) if isinstance(file, FileFields) else []
        budget.look(len(tasks) + 1)
        for at, task in enumerate(tasks):
            for test, fails in zip(tests, failed, strict=True):  # each WHERE pays for the rows it is given
                budget.spend()
                fails.incoming += 1
                try:
                    if not test(task):
                        break
                except NoImplementation as e:
                    fails.add(e)
                    break
            else:
                yield page, at, task
    for fails in failed:
        fails.check()


def _task_marks(pages: list[Row], budget: Budget) -> Iterator[tuple[str, Row, int, Any, Any]]:
    """What `_task_refs` keeps of every task of `pages` when no WHERE reads them: from the raw
    list items, no row built (a plain TASK over 10^5 notes built 668k list items' rows)."""
    for page in pages:
        file = page["file"]
        path, marks = file.task_marks() if isinstance(file, FileFields) else ("", [])
        budget.look(len(marks) + 1)
        for at, (line, text) in enumerate(marks):
            yield path, page, at, line, text


def _task_refs(pages: list[Row], tests: list[Callable[[Row], bool]], commands: list[Any], ctx: Context) -> Result:
    """A TASK query whose commands are WHEREs, then maybe one SORT or GROUP BY, then LIMITs:
    (path, page, index among the page's tasks, line, text) of each task that passes, its row
    built again when a page of the result is rendered. A SORT keeps its keys beside each (with
    a LIMIT, only the first rows as it goes), a GROUP BY its groups of them: no task row is
    held (TASK ... SORT over 10^5 notes held every task's row, ~433 MB at its peak)."""
    budget = ctx.budget
    first = commands[0] if commands and commands[0][0] in ("SORT", "GROUP") else None
    limits = commands[1:] if first is not None else commands
    cap = min((_limit(arg, ctx) for _, arg in limits), default=None)
    if first is None:
        found: Iterator[tuple[str, Row, int, Any, Any]]
        if tests:
            found = ((t["path"], p, at, t.get("line"), t.get("text")) for p, at, t in _tasks(pages, tests, budget))
        else:
            found = _task_marks(pages, budget)
        refs: list[Any] = list(itertools.islice(found, cap)) if cap != 0 else []
        grouped = False
    else:
        seen = [0]

        def counted(key_of: Callable[[Row], Any]) -> Iterator[tuple[Any, tuple[str, Row, int, Any, Any]]]:
            failed = Failed(first[0].lower())
            for page, at, task in _tasks(pages, tests, budget):
                budget.look()
                seen[0] += 1
                failed.incoming += 1
                try:
                    key = key_of(task)
                except NoImplementation as e:
                    failed.add(e)
                    continue
                yield key, (task["path"], page, at, task.get("line"), task.get("text"))
            failed.check()

        if first[0] == "SORT":
            keys = [(per_row(e, ctx, kept=True), d) for e, d in first[1]]
            order = functools.cmp_to_key(_by(keys, budget))
            marks = not tests and all(e[0] == "var" and e[1] in ("line", "text") for e, _ in first[1])
            decorated = (
                _marked([e[1] for e, _ in first[1]], pages, budget, seen)
                if marks
                else counted(lambda task: tuple(k(task) for k, _ in keys))
            )
            # heapq.nsmallest is sorted(...)[:cap], stable, holding `cap` rows at a time
            kept = heapq.nsmallest(cap, decorated, key=order) if cap is not None else list(decorated)
            if cap is None and not sorted_plainly(kept, [d for _, d in keys]):
                kept.sort(key=order)
            refs = [ref for _, ref in kept]
        else:
            refs = _grouped(counted(per_row(first[1].expr, ctx, kept=True)), budget)
        budget.spend(seen[0] + 1)  # the SORT or GROUP BY paid for its rows, as in `_run`
        n = len(refs) if first[0] == "GROUP" else seen[0]
        for _, arg in limits:
            budget.spend(n + 1)
            n = min(n, _limit(arg, ctx))
        refs = refs[:n]
        grouped = first[0] == "GROUP"

    def render(ref: tuple[str, Row, int, Any, Any]) -> dict[str, Any]:
        # The note's tasks are read again: one saved meanwhile may hold others at that place.
        # The task is the one of that line and text that still passes the WHEREs, or the query
        # is answered `conflict` (never another task, never an index error).
        ctx.budget.look()
        path, page, at, line, text = ref
        file = page["file"]
        rows = file.task_rows(page) if isinstance(file, FileFields) else []
        for row in (rows[at : at + 1] if at < len(rows) else []) + rows:
            if row.get("line") == line and row.get("text") == text and all(test(row) for test in tests):
                return _task(row)
        raise Conflict(
            f"{path!r} changed while the query ran",
            details={"path": path},
            hint="Run the query again: it reads the vault as it is now.",
        )

    if grouped:

        def group(r: Row) -> dict[str, Any]:
            budget.look(len(r["rows"]) + 1)
            return {"id": typed(r["key"]), "tasks": [counted_task(render(ref)) for ref in r["rows"]]}

        return Result("TASK", [], refs, True, group, lambda r: [ref[0] for ref in r["rows"]], budget)
    return Result("TASK", [], refs, False, render=render, paths=lambda ref: [ref[0]], budget=budget)


def _marked(names: list[str], pages: list[Row], budget: Budget, seen: list[int]) -> Iterator[tuple[Any, Any]]:
    """(keys, reference) of every task for a SORT by `line` and `text` only, with no WHERE before:
    the keys are the raw list items' (`_task_marks`), no task row built (building 397,414 rows
    for their keys was most of `TASK SORT text DESC` over 10^5 notes)."""
    for path, page, at, line, text in _task_marks(pages, budget):
        budget.look()
        seen[0] += 1
        yield tuple(line if name == "line" else text for name in names), (path, page, at, line, text)


def _grouped(keyed: Iterator[tuple[Any, Any]], budget: Budget) -> list[Row]:
    """GROUP BY over (key, row) pairs: `{key, rows}` by key in Dataview's order, rows in theirs."""
    groups: dict[Any, tuple[Any, list[Any]]] = {}
    for key, row in keyed:
        budget.look()
        marker = (type(key), key) if key is None or type(key) in _PLAIN else (type_of(key), repr(to_json(key)))
        groups.setdefault(marker, (key, []))[1].append(row)

    def cmp(a: tuple[Any, list[Any]], b: tuple[Any, list[Any]]) -> int:
        budget.look()
        return compare(a[0], b[0])

    ordered = sorted(groups.values(), key=functools.cmp_to_key(cmp))
    return [{"key": key, "rows": members} for key, members in ordered]


def _by(keys: list[tuple[Callable[[Row], Any], bool]], budget: Budget) -> Callable[[Any, Any], int]:
    """SORT's comparison of two (keys, row) pairs: key by key, Dataview's order, DESC reversed."""

    def cmp(a: tuple[tuple[Any, ...], Any], b: tuple[tuple[Any, ...], Any]) -> int:
        budget.look()
        for (x, y), (_, desc) in zip(zip(a[0], b[0], strict=True), keys, strict=True):
            c = compare(x, y)
            if c:
                return -c if desc else c
        return 0

    return cmp


def _sort(rows: list[Row], keys: list[tuple[Callable[[Row], Any], bool]], budget: Budget) -> list[Row]:
    key_of: Callable[[Row], tuple[Any, ...]] = lambda r: tuple(k(r) for k, _ in keys)  # noqa: E731
    # engine.ts: a row whose key fails is left out of the sort
    decorated = list(evaluated(rows, key_of, Failed("sort", len(rows)), budget.look))
    if not sorted_plainly(decorated, [d for _, d in keys]):  # strings, numbers: Python's own sort
        decorated.sort(key=functools.cmp_to_key(_by(keys, budget)))
    return [r for _, r in decorated]


_PLAIN = (str, int, float, bool)


def _group(rows: list[Row], col: Column, ctx: Context) -> list[Row]:
    key_of = per_row(col.expr, ctx, kept=True)
    groups = _grouped(evaluated(rows, key_of, Failed("group", len(rows))), ctx.budget)
    return [{col.name: g["key"], **g} for g in groups]


def _flatten(rows: list[Row], col: Column, ctx: Context) -> list[Row]:
    value_of = per_row(col.expr, ctx, kept=True)
    out: list[Row] = []
    budget = ctx.budget
    for value, row in evaluated(rows, value_of, Failed("flatten", len(rows))):
        items = value if isinstance(value, list) else [value]  # an empty list leaves no row
        budget.spend(len(items))  # the rows made (counted at the end before)
        budget.look()
        for item in items:
            out.append(Flat(col.name, item, row))
        budget.check_items(len(out))
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
    cells = [(c.name, per_row(c.expr, ctx)) for c in query.columns]
    budget = ctx.budget
    if query.kind == "TASK":
        if grouped:

            def group(r: Row) -> dict[str, Any]:  # groups of groups after a second GROUP BY: nested
                return render_group(r, lambda t: counted_task(_task(t)), budget.look)

            return Result("TASK", [], rows, grouped, group, group_paths, budget)

        def task(r: Row) -> dict[str, Any]:
            budget.look()
            return _task(r)

        return Result("TASK", [], rows, grouped, render=task, paths=lambda r: [task_path(r)], budget=budget)
    page_paths: Callable[[Row], list[str]] = lambda r: [p] if (p := _path(r, grouped)) else []  # noqa: E731
    if query.kind == "CALENDAR":
        name, date_of = cells[0]
        dated = []
        for when, r in evaluated(rows, date_of, Failed("extract", len(rows))):
            budget.look()
            if type_of(when) == "date":
                dated.append({"row": r, "date": when})
        return Result(
            "CALENDAR", [name], dated, grouped,
            render=lambda d: {"path": _path(d["row"], grouped), "id": typed(_id(d["row"], grouped)),
                              "date": to_json(d["date"])},
            paths=lambda d: page_paths(d["row"]), budget=budget,
        )  # fmt: skip
    # `file.x`, `this.x`, `row.x` never fail, unless a GROUP BY or FLATTEN names its value `file`
    bound = {arg.name for name, arg in query.commands if name in ("GROUP", "FLATTEN")}
    safe = frozenset({"this", "row"} if "file" in bound else {"file", "this", "row"})
    failing = [fn for (_, fn), c in zip(cells, query.columns, strict=True) if can_fail(c.expr, safe)]
    if failing:  # engine.ts executeCoreExtract: a row whose column fails is left out; the columns
        # that can fail are evaluated here to know which, all of them again when a page is rendered
        values_of: Callable[[Row], Any] = lambda r: [fn(r) for fn in failing]  # noqa: E731
        rows = [r for _, r in evaluated(rows, values_of, Failed("extract", len(rows)))]
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

    return Result(query.kind, columns, rows, grouped, render=render, paths=page_paths, budget=budget)


def _task(row: Row) -> dict[str, Any]:
    return {
        "path": task_path(row),
        "line": row.get("line"),
        "text": row.get("text"),
        "status": row.get("status"),
        "completed": row.get("completed"),
        "checked": row.get("checked"),
        "fully_completed": row.get("fullyCompleted"),
        "parent": row.get("parent"),
        "fields": {k: typed(v) for k, v in task_fields(row).items()},
    }
