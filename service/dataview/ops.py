"""Dataview's operators on values (arithmetic over numbers, text, dates, durations, lists and
objects; comparisons by `values.compare`) and text conversion, shared by the evaluator and the
function library; `Context` is what a function may reach. A string or list an operator builds
(`+`, `text * n`) is checked against the running budget's size limits before it is built.
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from service import budget as limits
from service.budget import Budget
from service.dataview import datefmt, durations
from service.dataview.rows import Row
from service.dataview.values import Duration, Link, compare, equal, to_json, type_of
from service.errors import QuerySyntaxError


class Context(Protocol):
    @property
    def budget(self) -> Budget: ...
    @property
    def now(self) -> dt.datetime: ...
    @property
    def page_of(self) -> Callable[[Link], Mapping[str, Any] | None]: ...
    @property
    def resolve(self) -> Callable[[Link], Link]: ...


def clean(v: float) -> int | float:
    """An integral float as an int (Dataview numbers are JavaScript doubles)."""
    return int(v) if isinstance(v, float) and v.is_integer() and abs(v) < 2**53 else v


# Dataview's `renderNullAs` (settings.ts DEFAULT_QUERY_SETTINGS): what `string(null)`, `"a" + null`
# and `join` write for a null, in its default (a Markdown-escaped '-'; the plugin's own setting is
# not read: the server answers as Dataview does before a user changes it)
NULL_TEXT = "\\-"


def to_string(v: Any, nested: bool = False) -> str:
    """A value as text (value.ts `Values.toString` with the default settings): a list inside a
    list or an object in brackets."""
    if v is None:
        return NULL_TEXT
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return str(clean(v))
    if isinstance(v, Link):
        return v.markdown()
    if isinstance(v, Duration):
        return datefmt.duration_words(v)
    if isinstance(v, dt.datetime):
        return str(to_json(v))
    if isinstance(v, list):
        text = ", ".join(to_string(x, True) for x in v)
        return f"[{text}]" if nested else text
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{k}: {to_string(x, True)}" for k, x in v.items()) + " }"
    return str(v)


# -- arithmetic ------------------------------------------------------------------------------


def add_months(d: dt.datetime, months: int) -> dt.datetime:
    total = d.year * 12 + (d.month - 1) + months
    year, month = divmod(total, 12)
    day = min(d.day, calendar.monthrange(year, month + 1)[1])
    return d.replace(year=year, month=month + 1, day=day)


def shift(d: dt.datetime, dur: Duration, sign: int) -> dt.datetime:
    return add_months(d, sign * dur.months) + dt.timedelta(seconds=sign * dur.seconds)


def date_diff(a: dt.datetime, b: dt.datetime) -> Duration:
    """`a - b` as Dataview computes it: Luxon's `a.diff(b, ["years", "months", "days", "hours",
    "minutes", "seconds", "milliseconds"])` — the most whole calendar months from the earlier date
    not past the later one, then the rest (days and time, exact; negated when `a` is the earlier)."""
    if a < b:
        return -date_diff(b, a)
    months = (a.year - b.year) * 12 + a.month - b.month
    while months > 0 and add_months(b, months) > a:
        months -= 1
    return Duration(months, (a - add_months(b, months)).total_seconds())


def is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_PLAIN = (str, int, float, bool)


class NoImplementation(QuerySyntaxError):
    """An operator or a function given types Dataview has no implementation for (binaryop.ts
    `BinaryOpHandler.evaluate`, functions.ts `FunctionBuilder.build`): the row being evaluated
    fails there, and engine.ts `executeCore` leaves it out of the WHERE, SORT, GROUP BY, FLATTEN
    or the columns (`execute`); the query fails when every row of one of them does. Raised out of
    a query (an expression evaluated once) it is that query's error."""

    def __init__(self, message: str, *, details: dict[str, Any] | None = None, hint: str | None = None) -> None:
        super().__init__(message, details={"reason": "no_implementation", **(details or {})}, hint=hint)


def no_operator(op: str, a: Any, b: Any) -> NoImplementation:
    return NoImplementation(f"No implementation found for '{type_of(a)} {op} {type_of(b)}'")


def binary(op: str, a: Any, b: Any) -> Any:
    if op in ("=", "!="):
        kind = type(a)
        same = a == b if kind is type(b) and kind in _PLAIN else equal(a, b)
        return same if op == "=" else not same
    if op in ("<", ">", "<=", ">="):
        c = compare(a, b)
        return {"<": c < 0, ">": c > 0, "<=": c <= 0, ">=": c >= 0}[op]
    if (a is None or b is None) and not (op == "+" and (isinstance(a, str) or isinstance(b, str))):
        # binaryop.ts: text + anything is text (null written as renderNullAs); null with null, and
        # a date plus or minus null, are null; null with anything else has no implementation
        if a is b or (op in ("+", "-") and (isinstance(a, dt.datetime) or isinstance(b, dt.datetime))):
            return None
        raise no_operator(op, a, b)
    try:
        value = _arithmetic(op, a, b)
    except (OverflowError, ValueError):  # a number past a double, a date past year 9999: null
        return None
    if value is _NONE:
        raise no_operator(op, a, b)
    return value


_NONE = object()  # `_arithmetic` found no implementation


def _arithmetic(op: str, a: Any, b: Any) -> Any:
    if op == "+":
        if isinstance(a, str) or isinstance(b, str):
            left, right = _text(a), _text(b)
            limits.check_chars(len(left) + len(right))
            return left + right
        if is_num(a) and is_num(b):
            return a + b
        if isinstance(a, dt.datetime) and isinstance(b, Duration):
            return shift(a, b, 1)
        if isinstance(a, Duration) and isinstance(b, dt.datetime):
            return shift(b, a, 1)
        if isinstance(a, Duration) and isinstance(b, Duration):
            return durations.summed(a, b, 1)
        if isinstance(a, list) and isinstance(b, list):
            limits.check_items(len(a) + len(b))
            return a + b
        if isinstance(a, dict | Row) and isinstance(b, dict | Row):  # a page's row is a `Row`
            return {**a, **b}
        return _NONE
    if op == "-":
        if is_num(a) and is_num(b):
            return a - b
        if isinstance(a, dt.datetime) and isinstance(b, Duration):
            return shift(a, b, -1)
        if isinstance(a, dt.datetime) and isinstance(b, dt.datetime):
            return date_diff(a, b)
        if isinstance(a, Duration) and isinstance(b, Duration):
            return durations.summed(a, b, -1)
        return _NONE
    if op == "*":
        if is_num(a) and is_num(b):
            return a * b
        if isinstance(a, str) and is_num(b) or is_num(a) and isinstance(b, str):  # binaryop.ts registerComm
            text, times = (a, b) if isinstance(a, str) else (b, a)
            limits.check_chars(len(text) * max(int(times), 0))
            return text * int(times)
        if isinstance(a, Duration) and is_num(b):
            return durations.scaled(a, b)
        if is_num(a) and isinstance(b, Duration):
            return durations.scaled(b, a)
        return _NONE
    if op == "/":
        if is_num(a) and is_num(b):  # x / 0 is JavaScript's Infinity (0 / 0 NaN): null, as JSON has neither
            return a / b if b else None
        if isinstance(a, Duration) and is_num(b):
            return durations.scaled(a, b, divide=True) if b else None
        return _NONE
    if op == "%":  # JavaScript's remainder takes the dividend's sign: -5 % 3 is -2, 5 % -3 is 2
        if is_num(a) and is_num(b):
            if not b:
                return None  # NaN in JavaScript
            if isinstance(a, int) and isinstance(b, int):
                rest = abs(a) % abs(b)
                return -rest if a < 0 else rest
            return clean(math.fmod(a, b))
        return _NONE
    return _NONE


def _text(v: Any) -> str:
    return to_string(v)
