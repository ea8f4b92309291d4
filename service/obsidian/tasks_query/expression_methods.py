"""The methods of `… by function` expressions beyond the first ones (`expression_values`):
JavaScript's `split`, `slice`, `substring`, `padStart`, … on text, `toFixed` on numbers, and the
array methods that take an arrow function (`find`, `filter`, `some`, `every`, `map`), as the
Tasks plugin's documented examples call them. Bounded: a padded text is 10,000 characters at most;
a split's items and the texts `+`, templates and `join` build are checked against `[limits]`, and
each arrow-function call looks at the query's time budget (`service.budget`).
"""

from __future__ import annotations

import json
from calendar import monthrange
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from service.budget import check_chars, check_items, current, hold
from service.dates import iso_day_or_none
from service.obsidian.tasks_query.dependencies import ALL_TASKS, relation_of
from service.obsidian.tasks_query.expression_values import (
    ExpressionError,
    Scope,
    _Obj,
    call_method,
    en_week,
    js_str,
    same,
    truthy,
)
from service.obsidian.tasks_query.js_numbers import to_fixed, to_integer
from service.obsidian.tasks_query.links import TaskLink

_NUMBER = (int, float)


class Arrow:
    """An arrow function (`(tag) => …`) as the value a method such as `find` is called with."""

    __slots__ = ("body", "params", "scope")

    def __init__(self, params: tuple[str, ...], body: Callable[[Scope], Any], scope: Scope) -> None:
        self.params, self.body, self.scope = params, body, scope

    def __call__(self, *values: Any) -> Any:
        budget = current()
        budget.look()  # nested map/filter over long lists: the query's time budget is looked at
        mark = budget.held  # what the body builds is gone when it returns (map counts what it keeps)
        try:
            return self.body(self.scope.naming(dict(zip(self.params, values, strict=False))))
        finally:
            budget.held = mark


def call(target: Any, name: str, args: list[Any], column: int) -> Any:
    """`target.name(*args)`: the methods here, else those of `expression_values`; a day past the
    calendar's ends (`moment('0001-01-01').startOf('week')`, a week of 9999-12-31) is an error
    naming the method, not an internal error."""
    try:
        return _call(target, name, args, column)
    except OverflowError:
        raise ExpressionError(f".{name}() leaves the calendar (years 1 to 9999)", column) from None


def _call(target: Any, name: str, args: list[Any], column: int) -> Any:
    if isinstance(target, str) and name in _MORE_STR:
        return _more_str(target, name, args, column)
    if isinstance(target, list) and name in _MORE_LIST:
        return _more_list(target, name, args, column)
    if isinstance(target, _NUMBER) and not isinstance(target, bool) and name == "toFixed":
        digits = args[0] if args else 0
        if len(args) > 1 or isinstance(digits, bool) or not isinstance(digits, _NUMBER) or not 0 <= digits <= 100:
            raise ExpressionError("toFixed takes a number of digits from 0 to 100", column)
        return to_fixed(target, int(digits))
    if isinstance(target, date) and name in _MORE_DAY:
        return _more_day(target, name, args, column)
    if isinstance(target, _Obj) and target.kind == "task" and name in ("isBlocked", "isBlocking"):
        if len(args) != 1 or args[0] is not ALL_TASKS:
            raise ExpressionError(f".{name}() takes query.allTasks", column)
        return relation_of(target.task, "blocked" if name == "isBlocked" else "blocking")
    if isinstance(target, _Obj) and target.kind == "file" and name in ("property", "hasProperty"):
        if len(args) != 1 or not isinstance(args[0], str):
            raise ExpressionError(f".{name}() takes one property name", column)
        found = target.task.file_property(args[0])
        if name == "hasProperty":
            return found is not None
        hold(len(json.dumps(found, default=str)) if isinstance(found, (list, dict)) else 0)
        return found
    if isinstance(target, TaskLink) and name == "linksTo":
        return _links_to(target, args, column)
    if isinstance(target, TaskLink) and name == "linksToPath" and len(args) == 1 and isinstance(args[0], str):
        return target.destination_path == args[0]  # `linksTo(query.file)`, as placeholders.py writes it
    return call_method(target, name, args, column)


def _links_to(link: TaskLink, args: list[Any], column: int) -> bool:
    """`link.linksTo('name')` (the destination as written, with or without '.md' and its folders)
    or `link.linksTo(task.file)` (the resolved path is the file's)."""
    if len(args) == 1 and isinstance(args[0], str):
        return link.links_to(args[0])
    if len(args) == 1 and isinstance(args[0], _Obj) and args[0].kind == "file":
        return link.destination_path == args[0].task.path
    raise ExpressionError("linksTo() takes a note's name or path, or task.file", column)


_MORE_DAY = ("isBetween", "day", "isoWeekday", "date", "month", "year", "dayOfYear", "week", "isoWeek", "startOf",
             "endOf")  # fmt: skip
_UNITS = {"day": "day", "days": "day", "d": "day", "week": "week", "weeks": "week", "w": "week",
          "isoWeek": "isoWeek", "isoWeeks": "isoWeek", "month": "month", "months": "month", "M": "month",
          "quarter": "quarter", "quarters": "quarter", "Q": "quarter", "year": "year", "years": "year",
          "y": "year"}  # fmt: skip


def _more_day(day: date, name: str, args: list[Any], column: int) -> Any:
    """moment's getters, `isBetween` and `startOf`/`endOf` on a day (moment's default en locale:
    weeks start on Sunday; `isoWeek` on Monday)."""
    getters: dict[str, Callable[[], Any]] = {
        "day": lambda: day.isoweekday() % 7, "isoWeekday": day.isoweekday, "date": lambda: day.day,
        "month": lambda: day.month - 1, "year": lambda: day.year, "dayOfYear": lambda: day.timetuple().tm_yday,
        "week": lambda: en_week(day)[1], "isoWeek": lambda: day.isocalendar()[1],
    }  # fmt: skip
    if name in getters and not args:
        return getters[name]()
    if name in ("startOf", "endOf") and len(args) == 1 and args[0] in _UNITS:
        first, last = _span(day, _UNITS[str(args[0])])
        return first if name == "startOf" else last
    if name == "isBetween" and 2 <= len(args) <= 4:
        ends = [_as_day(a, column) for a in args[:2]]
        marks = str(args[3]) if len(args) == 4 else "()"
        if len(marks) != 2 or marks[0] not in "([" or marks[1] not in ")]":
            raise ExpressionError("isBetween's inclusivity is '()', '[]', '[)' or '(]'", column)
        after = day >= ends[0] if marks[0] == "[" else day > ends[0]
        before = day <= ends[1] if marks[1] == "]" else day < ends[1]
        return after and before
    raise ExpressionError(f"cannot call .{name}() on a date with these arguments", column)


def _as_day(value: Any, column: int) -> date:
    if isinstance(value, date):
        return value
    if isinstance(value, str) and (day := iso_day_or_none(value)) is not None:
        return day
    raise ExpressionError("this method takes a date (a task's .moment, moment() or 'YYYY-MM-DD')", column)


def _span(day: date, unit: str) -> tuple[date, date]:
    """The first and last day of the `unit` holding `day`."""
    if unit == "day":
        return day, day
    if unit in ("week", "isoWeek"):
        first = day - timedelta(days=(day.isoweekday() % 7) if unit == "week" else day.isoweekday() - 1)
        return first, first + timedelta(days=6)
    if unit == "year":
        return date(day.year, 1, 1), date(day.year, 12, 31)
    start_month = day.month if unit == "month" else (day.month - 1) // 3 * 3 + 1
    first = date(day.year, start_month, 1)
    end_month = start_month + (0 if unit == "month" else 2)
    return first, date(day.year, end_month, monthrange(day.year, end_month)[1])  # December 9999 too


_MORE_STR = ("split", "slice", "substring", "toLocaleLowerCase", "toLocaleUpperCase", "padStart", "padEnd", "indexOf")
_MORE_LIST = ("find", "filter", "some", "every", "map", "slice", "indexOf", "pop", "sort")


def _ints(args: list[Any], most: int, column: int, name: str) -> list[int]:
    if len(args) > most or any(isinstance(a, bool) or not isinstance(a, _NUMBER) for a in args):
        raise ExpressionError(f"{name}() takes up to {most} numbers here", column)
    return [to_integer(a) for a in args]


def _more_str(target: str, name: str, args: list[Any], column: int) -> Any:
    """JavaScript's string methods beyond the first ones (`split`, `slice`, `substring`, …)."""
    if name in ("toLocaleLowerCase", "toLocaleUpperCase") and not args:
        hold(len(target))
        return target.lower() if name == "toLocaleLowerCase" else target.upper()
    if name == "split" and len(args) == 1 and isinstance(args[0], str):
        items = len(target) + 1 if args[0] == "" else target.count(args[0]) + 1
        check_items(items)
        hold(items + len(target))
        return list(target) if args[0] == "" else target.split(args[0])
    if name == "indexOf" and len(args) == 1 and isinstance(args[0], str):
        return target.find(args[0])
    if name in ("padStart", "padEnd") and args and (len(args) == 1 or isinstance(args[1], str)):
        width = _ints(args[:1], 1, column, name)[0]
        if width > _MAX_PAD:
            raise ExpressionError(f"{name}() pads to {_MAX_PAD} characters at most here", column)
        fill, need = (args[1] if len(args) > 1 else " "), max(0, width - len(target))
        pad = (fill * -(-need // len(fill)))[:need] if fill else ""
        hold(len(target) + len(pad))
        return pad + target if name == "padStart" else target + pad
    if name in ("slice", "substring"):
        bounds = _ints(args, 2, column, name)
        if name == "slice":
            part = target[slice(*bounds)] if len(bounds) == 2 else target[bounds[0] if bounds else 0 :]
        else:
            ends = [*bounds, len(target)] if len(bounds) == 1 else bounds or [0, len(target)]
            first, last = (min(max(b, 0), len(target)) for b in ends)
            part = target[min(first, last) : max(first, last)]
        hold(len(part))
        return part
    raise ExpressionError(f"cannot call .{name}() on a string with these arguments", column)


def _more_list(target: list[Any], name: str, args: list[Any], column: int) -> Any:
    """JavaScript's array methods that take an arrow function (`find`, `filter`, …), and a few more."""
    if name in ("find", "filter", "some", "every", "map"):
        if len(args) != 1 or not isinstance(args[0], Arrow):
            raise ExpressionError(f"{name}() takes an arrow function, such as (tag) => tag.includes('/')", column)
        f = args[0]
        if name == "map":
            out, held = [], 0
            for i, v in enumerate(target):
                out.append(value := f(v, i))
                size = size_of(value)
                held += size  # what the list holds, checked as it grows: s.split('').map(c => s + c)
                check_chars(held)
                hold(size)  # and with what the names and other lists hold
            return out
        kept = (v for i, v in enumerate(target) if truthy(f(v, i)))
        if name == "filter":
            found = []
            for v in kept:
                hold(1)
                found.append(v)
            return found
        if name == "find":
            return next(kept, None)
        if name == "some":
            return next(kept, _NONE) is not _NONE
        return all(truthy(f(v, i)) for i, v in enumerate(target))
    if name == "slice":
        bounds = _ints(args, 2, column, name)
        items = target[slice(*bounds)] if len(bounds) == 2 else target[bounds[0] if bounds else 0 :]
        hold(len(items))
        return items
    if name == "indexOf" and len(args) == 1:
        return next((i for i, v in enumerate(target) if same(v, args[0])), -1)
    if name == "pop" and not args:
        return target[-1] if target else None
    if name == "sort" and not args:  # JavaScript's: by the items' texts in UTF-16 order (undefined: last)
        hold(len(target))
        return sorted(target, key=lambda v: js_str(v).encode("utf-16-be"))
    raise ExpressionError(f"cannot call .{name}() on an array with these arguments", column)


def size_of(value: Any) -> int:
    """Characters (and items) a value holds: a text's length, a list's items' sizes (1 for anything else)."""
    if isinstance(value, str):
        return len(value)
    return sum(map(size_of, value)) + len(value) if isinstance(value, list) else 1


_NONE = object()
_MAX_PAD = 10_000  # padStart / padEnd: a query cannot build a huge string
