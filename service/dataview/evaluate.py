"""Expressions compiled to closures over a row, under one step and time budget per query.

A row is a mapping of field names to values (`pages.Page.row`, a task row, a group row).
Names resolve exactly, then by Dataview's simplified key; `this` is the page the query runs
in, `row` the row itself. Field access on a list maps over it, one value per item, nested
lists kept (context.ts; `rows.file.outlinks` is a list of lists), on a link it reads the
linked page's fields, on a date its parts (year ... millisecond, week, weekyear, weekday), on a
duration its components. An operator
or a function given types Dataview has no implementation for, and an index Dataview refuses
(`index`), raise `ops.NoImplementation` (the row fails: `execute` leaves it out); other type
mismatches give null, never a Python error. `and`/`or` evaluate both operands (`_boolean`).
Every evaluated call and every row counts against `Budget` (the shared `service.budget.Budget`
with Dataview's wording), which raises `compute_budget_exceeded` (steps, seconds, or a value past
`[limits]`).
"""

from __future__ import annotations

import datetime as dt
from collections import ChainMap
from collections.abc import Callable, Mapping
from typing import Any

from service import budget as shared
from service.budget import held_size
from service.dataview import durations
from service.dataview.functions import ARITY, FUNCTIONS
from service.dataview.items import FileFields
from service.dataview.ops import NoImplementation, binary, is_num
from service.dataview.rows import Row
from service.dataview.signatures import SIGNATURES
from service.dataview.signatures import check as check_arguments
from service.dataview.syntax import Node, date_keyword
from service.dataview.values import Duration, Lambda, Link, canonical_key, equal, truthy, type_of
from service.errors import QuerySyntaxError
from service.settings.limits import LimitsSettings

Compiled = Callable[[Mapping[str, Any]], Any]


class Budget(shared.Budget):
    """One Dataview query's steps and seconds, with `[limits]` for value sizes."""

    def __init__(self, max_steps: int, max_seconds: float, limits: LimitsSettings = shared.DEFAULT_LIMITS) -> None:
        super().__init__(
            limits,
            max_steps=max_steps,
            max_seconds=max_seconds,
            what="Dataview query",
            hint="Narrow FROM, filter earlier with WHERE, or add LIMIT.",
        )


class Context:
    """What an expression may reach beyond its row: the pages (for links), `this`, now, the budget."""

    def __init__(
        self,
        budget: Budget,
        page_of: Callable[[Link], Mapping[str, Any] | None],
        resolve: Callable[[Link], Link],
        this: Mapping[str, Any] | None = None,
        now: dt.datetime | None = None,
    ) -> None:
        self.budget = budget
        self.page_of = page_of
        self.resolve = resolve
        self.this = this
        self.now = now or dt.datetime.now().replace(microsecond=0)
        # Imported with this module, not by the first query's Context: imported after a page set
        # was built, the functions' objects landed in its pools, and once the set was dropped as
        # idle they kept ~30 MB of them resident (10^5 notes, in process).
        self.functions = FUNCTIONS


def lookup(row: Mapping[str, Any], name: str) -> Any:
    if name in row:
        return row[name]
    key = canonical_key(name)
    return row.get(key)


def get_field(ctx: Context, obj: Any, name: str) -> Any:
    if isinstance(obj, (dict, Row, FileFields)):  # the common cases, before the slower ABC test
        return lookup(obj, name)
    if isinstance(obj, list):
        out: list[Any] = []
        for item in obj:
            if isinstance(item, (dict, Row, FileFields)):
                value = lookup(item, name)
            elif isinstance(item, str):  # context.ts: an item that fails is left out of the list
                continue
            else:
                value = get_field(ctx, item, name)
            out.append(value)
        return out
    if isinstance(obj, Mapping):
        return lookup(obj, name)
    if isinstance(obj, Link):
        page = ctx.page_of(obj)
        return lookup(page, name) if page is not None else None
    if isinstance(obj, dt.datetime):
        return _date_part(obj, name)
    if isinstance(obj, Duration):
        return durations.part(obj, name)
    if isinstance(obj, str):  # `"abc".length` too: a string is indexed by a number only
        raise NoImplementation("string indexing requires a numeric index (string[index])")
    return None


def _date_part(d: dt.datetime, name: str) -> Any:
    """context.ts: `weekyear` is Luxon's weekNumber (the ISO week), `week` floor(day / 7) + 1 (a
    week of the month); quarter and ordinal are this server's own."""
    iso = d.isocalendar()
    parts = {
        "year": d.year, "month": d.month, "day": d.day, "hour": d.hour, "minute": d.minute,
        "second": d.second, "millisecond": d.microsecond // 1000, "week": d.day // 7 + 1, "weekyear": iso[1],
        "weekday": iso[2], "quarter": (d.month - 1) // 3 + 1, "ordinal": d.timetuple().tm_yday,
    }  # fmt: skip
    return parts.get(name)


def index(ctx: Context, obj: Any, key: Any) -> Any:
    """`obj[key]` (and `obj.key`) as context.ts "index" reads it: a key that is neither text, a
    number nor null, an object or link indexed by a number, a string by text, a date or duration
    by a number fail the row (`ops.NoImplementation`); a null key, and anything else indexed, are
    null."""
    if isinstance(key, str):
        return get_field(ctx, obj, key)
    if key is None:
        return None
    if not is_num(key):
        raise NoImplementation("Can only index with a string or number")
    if isinstance(obj, (list, str)):  # past either end null (list[-1] too); 1.5 is JavaScript's undefined
        return obj[int(key)] if 0 <= key < len(obj) and float(key).is_integer() else None
    for kinds, message in _NUMBER_INDEXED:
        if isinstance(obj, kinds):
            raise NoImplementation(message)
    return None


_NUMBER_INDEXED: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (Mapping, 'can only index into objects with strings (a.b or a["b"])'),
    (Link, 'can only index into links with strings (a.b or a["b"])'),
    (dt.datetime, "date indexing requires a string representing the unit"),
    (Duration, "duration indexing requires a string representing the unit"),
)


# -- memory held -----------------------------------------------------------------------------
# Each value is bounded alone (`[limits] max_value_bytes`, `max_list_items`, checked before it is
# built); what one row's evaluation holds side by side is bounded by their sum (`max_eval_bytes`,
# `Budget.hold`): a function's or a `+` / `*`'s value is held once made (a function gives back
# what it held while it ran: a map's items are its list's), a lambda's body gives back what it
# built but its value, and each row's evaluation gives back what it built when it returns, but
# the values kept across rows (SORT and GROUP BY keys, FLATTEN's lists: `per_row`). Before,
# `map(split(padleft("", N, "a"), ""), (x) => padleft(x, 16000000, "b"))` held N + 2 texts of
# 16 MB each (16 of them in 0.35 s: gigabytes within the 10 s budget); now it stops past 64 MiB.

_BUILT = frozenset({str, list, dict})


def _holding(fn: Compiled, budget: Budget) -> Compiled:
    def held(row: Mapping[str, Any]) -> Any:
        value = fn(row)
        if type(value) in _BUILT:
            budget.hold(held_size(value))
        return value

    return held


def per_row(node: Node, ctx: Context, *, kept: bool = False) -> Compiled:
    """`node` compiled to be evaluated one row at a time (a WHERE, a column, a SORT or GROUP BY
    key, a FLATTEN): what an evaluation built is given back when it returns, all of it, or with
    `kept` (a value kept across rows) all but its value, held until the query ends. An expression
    that calls nothing and adds nothing builds nothing: it is run as compiled."""
    fn = compile_expr(node, ctx)
    if not _builds(node):
        return fn
    budget = ctx.budget

    def run(row: Mapping[str, Any]) -> Any:
        before = budget.held
        try:
            value = fn(row)
        finally:  # a row that fails (`ops.NoImplementation`) gives back what it built too
            budget.held = before
        if kept and type(value) in _BUILT:
            budget.hold(held_size(value))
        return value

    return run


def can_fail(node: Any, safe: frozenset[str] = frozenset()) -> bool:
    """Whether evaluating `node` may fail on a row (`ops.NoImplementation`): it holds arithmetic,
    a call (a function given types it has no implementation for, a lambda's body) or an index
    (`x.y`, `x[0]`: context.ts fails a string read by name, an object by number, ...), but a field
    of a name in `safe` (`file.name`, where `file` is always the page's file object)."""
    if isinstance(node, list):
        return any(can_fail(part, safe) for part in node)
    if not isinstance(node, tuple) or not node:
        return False
    kind = node[0]
    if kind == "field" and node[1][0] == "var" and node[1][1] in safe:
        return False
    if kind in ("call", "field", "index") or (kind == "bin" and node[1] in ("+", "-", "*", "/", "%")):
        return True
    return any(can_fail(part, safe) for part in node[1:] if isinstance(part, (tuple, list)))


def _builds(node: Any) -> bool:
    if not isinstance(node, tuple) or not node:
        return False
    if node[0] in ("call", "lambda", "list", "object") or (node[0] == "bin" and node[1] in ("+", "*")):
        return True
    return any(_builds(part) for part in node[1:] if isinstance(part, tuple))


# -- compilation -----------------------------------------------------------------------------


def compile_expr(node: Node, ctx: Context) -> Compiled:
    kind = node[0]
    if kind == "lit":
        value = node[1]
        return lambda row: value
    if kind == "datekw":
        stamp = date_keyword(node[1], ctx.now)
        return lambda row: stamp
    if kind == "link":
        link: Link = node[1]
        if not link.path:
            return lambda row: (ctx.this or {}).get("file", {}).get("link")
        resolved = ctx.resolve(link)
        return lambda row: resolved
    if kind == "var":
        return _var(node[1], ctx)
    if kind == "field":
        obj, name = compile_expr(node[1], ctx), node[2]
        return lambda row: get_field(ctx, obj(row), name)
    if kind == "index":
        obj, key = compile_expr(node[1], ctx), compile_expr(node[2], ctx)
        return lambda row: index(ctx, obj(row), key(row))
    if kind in ("and", "or"):
        return _boolean(kind, compile_expr(node[1], ctx), compile_expr(node[2], ctx), can_fail(node[2]))
    if kind == "not":
        inner = compile_expr(node[1], ctx)
        return lambda row: not truthy(inner(row))
    if kind == "neg":
        inner = compile_expr(node[1], ctx)
        return lambda row: _negate(inner(row))
    if kind == "bin":
        op, left, right = node[1], compile_expr(node[2], ctx), compile_expr(node[3], ctx)
        if op in ("=", "!=") and node[3][0] == "lit" and type(node[3][1]) in (str, int, float):
            return _equals_literal(left, node[3][1], op == "=")
        if op in ("+", "*"):  # they build texts, lists and objects: held (`held_size`)
            return _holding(lambda row: binary(op, left(row), right(row)), ctx.budget)
        return lambda row: binary(op, left(row), right(row))
    if kind == "list":
        items = [compile_expr(n, ctx) for n in node[1]]
        return lambda row: [item(row) for item in items]
    if kind == "object":
        pairs = [(k, compile_expr(n, ctx)) for k, n in node[1]]
        return lambda row: {k: fn(row) for k, fn in pairs}
    if kind == "lambda":
        return _lambda(node[1], compile_expr(node[2], ctx), ctx.budget)
    if kind == "call":
        return _call(node, ctx)
    raise ValueError(f"unknown node {kind}")


def _boolean(kind: str, left: Compiled, right: Compiled, right_can_fail: bool) -> Compiled:
    """`and` / `or`: binaryop.ts registers `&` and `|` as operators, so context.ts evaluates both
    operands first and a right operand that fails fails the row even when the left one decides
    (`true or x - null`). A right operand that cannot fail is skipped when the left one decides:
    the same answer, cheaper."""
    if kind == "and":
        if not right_can_fail:
            return lambda row: truthy(left(row)) and truthy(right(row))
        return lambda row: truthy(right(row)) if truthy(left(row)) else (right(row), False)[1]
    if not right_can_fail:
        return lambda row: truthy(left(row)) or truthy(right(row))
    return lambda row: (right(row), True)[1] if truthy(left(row)) else truthy(right(row))


def _equals_literal(left: Compiled, literal: Any, positive: bool) -> Compiled:
    """`field = "text"` (the most common WHERE): compared directly when the types agree."""
    kind = type(literal)

    def test(row: Mapping[str, Any]) -> bool:
        value = left(row)
        same = value == literal if type(value) is kind else equal(value, literal)
        return same if positive else not same

    return test


def _negate(v: Any) -> Any:
    if is_num(v):
        return -v
    if isinstance(v, Duration):
        return -v
    return None


def _var(name: str, ctx: Context) -> Compiled:
    if name == "this":
        return lambda row: ctx.this
    if name == "row":
        return lambda row: row
    canonical = canonical_key(name)
    if canonical == name:
        return lambda row: row.get(name)

    def var(row: Mapping[str, Any]) -> Any:
        value = row.get(name, _MISSING)
        return row.get(canonical) if value is _MISSING else value

    return var


_MISSING = object()
BOOLEAN_NODES = frozenset({"and", "or", "not"})


def returns_bool(node: Node) -> bool:
    """Whether `node` always evaluates to a Python bool (WHERE may then skip `truthy`)."""
    return node[0] in BOOLEAN_NODES or (node[0] == "bin" and node[1] in ("=", "!=", "<", ">", "<=", ">="))


def _lambda(params: tuple[str, ...], body: Compiled, budget: Budget) -> Compiled:
    def make(row: Mapping[str, Any]) -> Lambda:
        def call(args: list[Any]) -> Any:
            budget.spend()
            bound = dict(zip(params, args, strict=False))
            before = budget.held  # what the body built is given back; its value is held (`map`'s items)
            value = body(ChainMap(bound, row))  # type: ignore[arg-type]
            budget.held = before
            if type(value) in _BUILT:
                budget.hold(held_size(value))
            return value

        return Lambda(params, call)

    return make


def _call(node: Node, ctx: Context) -> Compiled:
    target, arg_nodes = node[1], node[2]
    args = [compile_expr(a, ctx) for a in arg_nodes]
    budget = ctx.budget
    if target[0] == "var" and target[1].lower() in ctx.functions:
        fn = ctx.functions[target[1].lower()]
        fewest, most = ARITY.get(target[1].lower(), (0, None))
        if not fewest <= len(arg_nodes) <= (len(arg_nodes) if most is None else most):
            takes = f"{fewest}" if fewest == most else f"{fewest} or more" if most is None else f"{fewest} to {most}"
            raise QuerySyntaxError(
                f"{target[1]}() takes {takes} argument{'' if takes == '1' else 's'}, not {len(arg_nodes)}",
                details={"function": target[1], "arguments": len(arg_nodes), "min": fewest, "max": most},
                hint="See Dataview's function list for what each function takes.",
            )

        typed_as = target[1].lower() if target[1].lower() in SIGNATURES else None

        def call(row: Mapping[str, Any]) -> Any:
            budget.spend()
            values = [a(row) for a in args]
            if typed_as is not None:  # arguments of types it has no variant for: the row fails
                check_arguments(typed_as, values)
            before = budget.held
            try:
                value = fn(ctx, values)
            except (OverflowError, ValueError):  # round(10^400 / 3), a date past year 9999: null
                value = None
            budget.held = before  # what it held while it ran (a map's items) is its value's now
            if type(value) in _BUILT:
                budget.hold(held_size(value))
            return value

        return call
    if target[0] == "var" and target[1] not in ("this", "row"):
        raise QuerySyntaxError(
            f"unknown function {target[1]!r}", details={"function": target[1]}, hint="See Dataview's function list."
        )
    callee = compile_expr(target, ctx)

    def call_value(row: Mapping[str, Any]) -> Any:
        budget.spend()
        f = callee(row)
        return f.call([a(row) for a in args]) if isinstance(f, Lambda) else None

    return call_value


def describe_type(value: Any) -> str:
    return type_of(value)
