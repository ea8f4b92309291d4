"""Dataview's function library: constructors, numeric, object/array, string, utility and date.

Each function takes the evaluation `Context` and its evaluated arguments and returns a value;
arguments of types Dataview has no variant for fail the row before the call
(`signatures.SIGNATURES`, checked by `evaluate`); a function not listed there gives null for a
type it does not read. The one-value string and number
functions are vectorised over lists (`lower(["A", "B"])`), as Dataview documents. Luxon-style
date tokens (`yyyy-MM-dd`, `HH:mm`, `x` ...) are translated in `datefmt.py`. Touches nothing
outside itself.
"""

from __future__ import annotations

import datetime as dt
import inspect
import math
import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from decimal import Context as DecimalContext
from typing import Any

from service.dataview import currency, datefmt, durations, hashing
from service.dataview.collate import collation_key
from service.dataview.ops import Context, binary, clean, to_string
from service.dataview.syntax import date_keyword
from service.dataview.values import (
    Duration,
    Lambda,
    Link,
    SortKey,
    parse_date,
    parse_duration,
    parse_link,
    truthy,
    type_of,
)

Fn = Callable[[Context, list[Any]], Any]
FUNCTIONS: dict[str, Fn] = {}
# (fewest, most or None) arguments of a function of fixed arguments: a call with another number
# is refused when the query is read, as Dataview finds no implementation for it (each row fails)
ARITY: dict[str, tuple[int, int | None]] = {}


def arity_of(f: Callable[..., Any], skip: int) -> tuple[int, int | None]:
    """The arguments `f` takes after its first `skip` ones: (required, at most or None)."""
    params = list(inspect.signature(f).parameters.values())[skip:]
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return sum(p.default is p.empty and p.kind is not p.VAR_POSITIONAL for p in params), None
    return sum(p.default is p.empty for p in params), len(params)


def fn(*names: str) -> Callable[[Fn], Fn]:
    def register(f: Fn) -> Fn:
        for name in names:
            FUNCTIONS[name] = f
        return f

    return register


def spread(over: dict[int, tuple[int, ...]]) -> Callable[[Fn], Fn]:
    """functions.ts `FunctionBuilder.vectorize(n, positions)`: called with `n` arguments, a list
    in one of `over[n]`'s positions maps the call over its items, the lists there zipped and cut
    to the shortest (`default(["a", "b"], ["x"])` is ["a"]), the other arguments as they are."""

    def wrap(f: Fn) -> Fn:
        def call(ctx: Context, args: list[Any]) -> Any:
            spots = [i for i in over.get(len(args), ()) if isinstance(args[i], list)]
            if not spots:
                return f(ctx, args)
            count = min(len(args[i]) for i in spots)
            return [call(ctx, [a[k] if i in spots else a for i, a in enumerate(args)]) for k in range(count)]

        return call

    return wrap


def vectorised(
    *names: str, arity: tuple[int, int | None] | None = None, over: dict[int, tuple[int, ...]] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a function of one leading value, mapped over a list in that position (or, with
    `over`, as `spread` maps it); `arity`: the arguments it takes (default: its own after `ctx`)."""

    def register(f: Callable[..., Any]) -> Callable[..., Any]:
        def first(ctx: Context, args: list[Any]) -> Any:
            if args and isinstance(args[0], list):
                return [f(ctx, v, *args[1:]) for v in args[0]]
            return f(ctx, *args) if args else None

        call: Fn = first if over is None else spread(over)(lambda ctx, args: f(ctx, *args) if args else None)
        for name in names:
            FUNCTIONS[name] = call
            ARITY[name] = arity or arity_of(f, 1)
        return f

    return register


def _n(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# -- constructors ----------------------------------------------------------------------------


@fn("object")
def _object(ctx: Context, a: list[Any]) -> Any:
    if len(a) % 2:
        return None
    return {str(a[i]): a[i + 1] for i in range(0, len(a), 2)}


@fn("list", "array")
def _list(ctx: Context, a: list[Any]) -> Any:
    return list(a)


@fn("date")
def _date(ctx: Context, a: list[Any]) -> Any:
    if len(a) == 2:
        return datefmt.parse(a[0], a[1]) if isinstance(a[0], str) and isinstance(a[1], str) else None
    v = a[0] if a else None
    if isinstance(v, list):
        return [_date(ctx, [x]) for x in v]
    if isinstance(v, dt.datetime):
        return v
    if isinstance(v, Link):
        # Dataview's date(link): the display text, then the path (as written while the link resolves
        # nowhere: a resolved one ends in '.md', no date), then the linked page's file.day
        page = ctx.page_of(v)
        for text in (v.display, None if page else v.path.removesuffix(".md")):
            if text and (when := parse_date(text)) is not None:
                return when
        return page.get("file", {}).get("day") if page else None
    if isinstance(v, str):
        return parse_date(v) or date_keyword(v, ctx.now)
    return None


@fn("dur")
@spread({1: (0,)})
def _dur(ctx: Context, a: list[Any]) -> Any:
    v = a[0] if a else None
    if isinstance(v, Duration):
        return v
    return parse_duration(v) if isinstance(v, str) else None


@vectorised("number")
def _number(ctx: Context, v: Any) -> Any:
    if _n(v):
        return v
    if isinstance(v, str):
        m = re.search(r"-?\d+(?:\.\d+)?", v)
        return clean(float(m.group())) if m else None
    return None


@fn("string")
def _string(ctx: Context, a: list[Any]) -> Any:
    return to_string(a[0]) if a else None


@fn("link")
def _link(ctx: Context, a: list[Any]) -> Any:
    if not a or isinstance(a[0], list):
        return [_link(ctx, [x, *a[1:]]) for x in a[0]] if a else None
    target = a[0]
    display = a[1] if len(a) > 1 and isinstance(a[1], str) else None
    if isinstance(target, Link):
        return Link(target.path, display or target.display, target.embed, target.subpath)
    if isinstance(target, str):
        parsed = parse_link(target) if target.startswith("[[") else None
        link = parsed or Link(target)
        return ctx.resolve(Link(link.path, display or link.display, link.embed, link.subpath))
    return None


@fn("embed")
def _embed(ctx: Context, a: list[Any]) -> Any:
    link = a[0] if a else None
    if not isinstance(link, Link):
        return None
    return Link(link.path, link.display, truthy(a[1]) if len(a) > 1 else True, link.subpath)


@fn("elink")
def _elink(ctx: Context, a: list[Any]) -> Any:
    if not a or not isinstance(a[0], str):
        return None
    url, text = a[0], a[1] if len(a) > 1 and isinstance(a[1], str) else a[0]
    return f"[{text}]({url})"


@fn("typeof")
def _typeof(ctx: Context, a: list[Any]) -> Any:
    return type_of(a[0]) if a else None


# -- numeric ---------------------------------------------------------------------------------


@vectorised("round")
def _round(ctx: Context, v: Any, digits: Any = 0) -> Any:
    """functions.ts round: `Math.round(n)` (a half goes up: round(-2.5) is -2), with digits
    `parseFloat(n.toFixed(p))` (the double's exact decimal, half away from zero: round(4.35, 1) is
    4.3, as 4.35 is 4.3499999...)."""
    if not _n(v) or not math.isfinite(v):
        return None
    if not _n(digits) or digits < 1 or abs(v) >= 1e21:
        whole = math.floor(v)
        return int(whole + 1 if v - whole >= 0.5 else whole)
    places = Decimal(1).scaleb(-min(int(digits), 100))
    return clean(float(Decimal(v).quantize(places, rounding=ROUND_HALF_UP, context=DecimalContext(prec=200))))


@vectorised("trunc")
def _trunc(ctx: Context, v: Any) -> Any:
    return math.trunc(v) if _n(v) else None


@vectorised("floor")
def _floor(ctx: Context, v: Any) -> Any:
    return math.floor(v) if _n(v) else None


@vectorised("ceil")
def _ceil(ctx: Context, v: Any) -> Any:
    return math.ceil(v) if _n(v) else None


def _values(a: list[Any]) -> list[Any]:
    return list(a[0]) if len(a) == 1 and isinstance(a[0], list) else list(a)


def _extreme(a: list[Any], pick: Callable[..., Any]) -> Any:
    # functions.ts min/max: a null is passed over (`add2("*", "null", (a, _n) => a)`), the rest
    # compared by compareValue (strings as localeCompare: `collate`)
    vals = [v for v in _values(a) if v is not None]
    if not vals:
        return None
    kind = type(vals[0])
    if kind in (str, int, float, dt.datetime) and all(type(v) is kind for v in vals):
        return pick(vals, key=collation_key) if kind is str else pick(vals)  # one plain type: no SortKey calls
    return pick(vals, key=SortKey)


@fn("min")
def _min(ctx: Context, a: list[Any]) -> Any:
    return _extreme(a, min)


@fn("max")
def _max(ctx: Context, a: list[Any]) -> Any:
    return _extreme(a, max)


def _fold(ctx: Context, vals: Any, op: str) -> Any:
    if not isinstance(vals, list) or not vals:
        return None
    acc = vals[0]
    for v in vals[1:]:
        ctx.budget.spend()
        acc = binary(op, acc, v)
    return acc


def _alone(a: list[Any]) -> Any:
    """functions.ts sum/product/average `.add1("*", e => e)`: a value that is no list is itself."""
    if not a:
        return None
    return _MANY if isinstance(a[0], list) else a[0]


_MANY = object()


@fn("sum")
def _sum(ctx: Context, a: list[Any]) -> Any:
    alone = _alone(a)
    return _fold(ctx, a[0], "+") if alone is _MANY else alone


@fn("product")
def _product(ctx: Context, a: list[Any]) -> Any:
    alone = _alone(a)
    return _fold(ctx, a[0], "*") if alone is _MANY else alone


@fn("reduce")
def _reduce(ctx: Context, a: list[Any]) -> Any:
    if len(a) == 2 and isinstance(a[0], list) and isinstance(a[1], Lambda):
        # functions.ts reduce(array, function): from the first item, nulls after it passed over
        if not a[0]:
            return None
        acc = a[0][0]
        for v in a[0][1:]:
            if v is not None:
                acc = a[1].call([acc, v])
        return acc
    if len(a) != 2 or not isinstance(a[1], str) or a[1] not in ("+", "-", "*", "/", "%", "&", "|"):
        return None
    if a[1] in ("&", "|"):
        vals = a[0] if isinstance(a[0], list) else []
        if not vals:
            return None  # functions.ts reduce: an empty list is null
        return all(truthy(v) for v in vals) if a[1] == "&" else any(truthy(v) for v in vals)
    return _fold(ctx, a[0], a[1])


@fn("average")
def _average(ctx: Context, a: list[Any]) -> Any:
    alone = _alone(a)
    if alone is not _MANY:
        return alone
    total = _fold(ctx, a[0], "+")  # then `total / length` as the operator divides (a duration too)
    return binary("/", total, len(a[0])) if total is not None else None


def _by(ctx: Context, a: list[Any], pick: Callable[..., Any]) -> Any:
    """functions.ts minby/maxby: an item whose key is null is passed over (all of them: the first
    item); the first of equal keys wins."""
    if len(a) != 2 or not isinstance(a[0], list) or not isinstance(a[1], Lambda) or not a[0]:
        return None
    f = a[1]
    keyed = [(key, v) for v in a[0] if (key := f.call([v])) is not None]
    if not keyed:
        return a[0][0]
    return pick(keyed, key=lambda kv: SortKey(kv[0]))[1]


@fn("minby")
def _minby(ctx: Context, a: list[Any]) -> Any:
    return _by(ctx, a, min)


@fn("maxby")
def _maxby(ctx: Context, a: list[Any]) -> Any:
    return _by(ctx, a, lambda items, key: max(reversed(items), key=key))  # of equal keys, the last


# -- objects, arrays and strings: `functions_lists.py` registers them -------------------------


@fn("default")
@spread({2: (0, 1)})
def _default(ctx: Context, a: list[Any]) -> Any:
    if len(a) != 2:
        return None
    return a[1] if a[0] is None else a[0]


@fn("ldefault")
def _ldefault(ctx: Context, a: list[Any]) -> Any:
    return (a[1] if a[0] is None else a[0]) if len(a) == 2 else None


@fn("choice")
@spread({3: (0,)})
def _choice(ctx: Context, a: list[Any]) -> Any:
    return (a[1] if truthy(a[0]) else a[2]) if len(a) == 3 else None


@fn("display")
def _display(ctx: Context, a: list[Any]) -> Any:
    v = a[0] if a else None
    if v is None:
        return ""  # Dataview: display(null) is ''
    if isinstance(v, Link):
        return v.display or v.path.rsplit("/", 1)[-1].removesuffix(".md")
    if isinstance(v, list):
        return ", ".join(str(_display(ctx, [x])) for x in v)
    if isinstance(v, dt.datetime):  # Values.toString, settings.ts defaultDateFormat / defaultDateTimeFormat
        midnight = v.hour == v.minute == v.second == 0
        return datefmt.format_date(v, "MMMM dd, yyyy" if midnight else "h:mm a - MMMM dd, yyyy")
    if isinstance(v, str):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", v)
        text = re.sub(r"\[\[(?:[^\]|]*\|)?([^\]]*)\]\]", r"\1", text)
        return re.sub(r"[*_~=`]+", "", text)
    return to_string(v)


@fn("hash")
def _hash(ctx: Context, a: list[Any]) -> Any:
    """functions.ts hash(seed, variant), hash(seed, text), hash(seed, text, variant): cyrb53 of the
    seed (and text), the variant its seed; other arguments have no implementation (null)."""
    kinds = tuple("number" if _n(v) else "string" if isinstance(v, str) else "" for v in a)
    if kinds == ("string", "number"):
        text, variant = a[0], a[1]
    elif kinds in (("string", "string"), ("string", "string", "number")):
        text, variant = a[0] + a[1], a[2] if len(a) == 3 else 0
    else:
        return None
    return hashing.cyrb53(text, int(variant) if math.isfinite(variant) else 0)


@fn("meta")
def _meta(ctx: Context, a: list[Any]) -> Any:
    link = a[0] if a else None
    if not isinstance(link, Link):
        return None
    sub = link.subpath[1:] if link.subpath and link.subpath.startswith("^") else link.subpath
    return {"display": link.display, "embed": link.embed, "path": link.path, "subpath": sub, "type": link.kind}


# -- dates -----------------------------------------------------------------------------------


@vectorised("striptime")
def _striptime(ctx: Context, v: Any) -> Any:
    return v.replace(hour=0, minute=0, second=0, microsecond=0) if isinstance(v, dt.datetime) else None


@vectorised("dateformat")
def _dateformat(ctx: Context, v: Any, fmt: Any = None) -> Any:
    return datefmt.format_date(v, fmt) if isinstance(v, dt.datetime) and isinstance(fmt, str) else None


@vectorised("durationformat")
def _durationformat(ctx: Context, v: Any, fmt: Any = None) -> Any:
    return durations.to_format(v, fmt) if isinstance(v, Duration) and isinstance(fmt, str) else None


@vectorised("localtime")
def _localtime(ctx: Context, v: Any) -> Any:
    return v if isinstance(v, dt.datetime) else None


@fn("currencyformat")
@spread({2: (0,)})
def _currency(ctx: Context, a: list[Any]) -> Any:
    if not a or not _n(a[0]) or (len(a) > 1 and not isinstance(a[1], str)):
        return None
    return currency.format_currency(a[0], a[1] if len(a) > 1 else "USD")


from service.dataview import functions_lists as _lists  # noqa: E402  (registers the rest)

_lists.register(fn, vectorised, arity_of, spread)
