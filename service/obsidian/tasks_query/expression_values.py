"""Values of the `… by function` expressions (`expressions.py` reads them): the task and its
objects as an expression sees them, the listed methods, JavaScript's truthiness, text conversion
and operators over those values. Nothing here reaches beyond the task record it is handed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from service.budget import check_chars, current, hold
from service.dates import iso_day_or_none
from service.obsidian.tasks_query.js_numbers import js_number, number_text, to_integer
from service.obsidian.tasks_query.links import FIELDS as LINK_FIELDS
from service.obsidian.tasks_query.links import FILE_FIELDS as FILE_LINK_FIELDS
from service.obsidian.tasks_query.links import TaskLink
from service.obsidian.tasks_query.record import FILE_MEMBERS, OPEN_TYPES, TaskRecord

_PRIORITY_NAMES = ("Highest", "High", "Medium", "Normal", "Low", "Lowest")
DATES = ("due", "scheduled", "start", "created", "done", "cancelled", "happens")
TASK_FIELDS = ("description", "status", "isDone", "priorityNumber", "priorityName", "priorityNameGroupText", "urgency",
               "tags", "heading",
               "hasHeading", "isRecurring", "recurrenceRule", "file", "id", "dependsOn", "descriptionWithoutTags",
               "onCompletion", "lineNumber", "originalMarkdown", "listMarker", "outlinks", *DATES)  # fmt: skip
FILE_FIELDS = (*FILE_MEMBERS, *FILE_LINK_FIELDS)
ANYWHERE = ("length", *LINK_FIELDS)  # read on any value: a text's or an array's length, a link's (`links.py`)
STATUS_FIELDS = ("type", "symbol", "name", "nextSymbol", "typeGroupText")
DATE_FIELDS = ("moment", "category")
CATEGORY_FIELDS = ("name", "sortOrder", "groupText")
METHODS = {
    "str": ("includes", "startsWith", "endsWith", "toLowerCase", "toUpperCase", "trim", "replace", "split", "slice",
            "substring", "toLocaleLowerCase", "toLocaleUpperCase", "padStart", "padEnd", "indexOf"),
    "list": ("includes", "join", "find", "filter", "some", "every", "map", "slice", "indexOf", "pop", "sort"),
    "number": ("toFixed",),
    "day": ("isBefore", "isAfter", "isSame", "isSameOrBefore", "isSameOrAfter", "format", "diff", "add", "subtract",
            "isBetween", "day", "isoWeekday", "date", "month", "year", "dayOfYear", "week", "isoWeek", "startOf",
            "endOf"),
    "taskdate": ("formatAsDate", "formatAsDateAndTime", "format"),
    "file": ("property", "hasProperty"),  # task.file's (its note's properties): expression_methods
    "task": ("isBlocked", "isBlocking"),  # with query.allTasks: expression_methods
    "link": ("linksTo", "linksToPath"),  # a TaskLink's (`links.py`; linksToPath: linksTo(query.file))
}  # fmt: skip
ALL_METHODS = frozenset(m for ms in METHODS.values() for m in ms)


_NUMBER, _SIZED = (int, float), (str, list)  # isinstance tuples: built once, not a union per call


class ExpressionError(Exception):
    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.message, self.column = message, column


@dataclass(frozen=True, slots=True)
class Scope:
    task: TaskRecord
    today: date
    urgency: Callable[[TaskRecord, date], float]
    names: dict[str, Any] | None = None  # `const` names and arrow-function parameters in scope

    def naming(self, more: dict[str, Any]) -> Scope:
        return Scope(self.task, self.today, self.urgency, {**(self.names or {}), **more})


Node = Callable[[Scope], Any]


class RunError(Exception):
    """An expression that failed on a task while the query ran (reading `.x` of null, …)."""

    def __init__(self, message: str, line: int, column: int, text: str) -> None:
        super().__init__(message)
        self.message, self.line, self.column, self.text = message, line, column, text


@dataclass(frozen=True, slots=True)
class Function:
    """A compiled `… by function` expression and where it was written."""

    node: Node
    source: str
    line: int
    text: str
    urgency: Callable[[TaskRecord, date], float]

    def __call__(self, task: TaskRecord, today: date) -> Any:  # what it built is given back to `held`
        budget = current()
        mark = budget.held
        try:
            return self.node(Scope(task, today, self.urgency))
        except ExpressionError as e:
            where = f"{task.path} line {task.line + 1}"
            raise RunError(f"{e.message} (the task at {where})", self.line, e.column, self.text) from None
        finally:
            budget.held = mark


# -- values -----------------------------------------------------------------------------------


class _Obj:
    """`task`, `task.file`, `task.status` and a task's date (`task.due`) as the expression sees them."""

    __slots__ = ("kind", "task")

    def __init__(self, kind: str, task: TaskRecord) -> None:
        self.kind, self.task = kind, task


_FIELDS: dict[str, Callable[[TaskRecord, Scope], Any]] = {
    "description": lambda t, s: t.description,
    "isDone": lambda t, s: t.kind not in OPEN_TYPES,
    "priorityNumber": lambda t, s: t.priority_rank,
    "priorityName": lambda t, s: _PRIORITY_NAMES[t.priority_rank],
    "priorityNameGroupText": lambda t, s: f"%%{t.priority_rank}%%{_PRIORITY_NAMES[t.priority_rank]} priority",
    "urgency": lambda t, s: s.urgency(t, s.today),
    "tags": lambda t, s: _counted(["#" + g for g in t.tags]),  # a new list a read: `const` names keep it
    "heading": lambda t, s: t.heading,
    "hasHeading": lambda t, s: t.heading is not None,
    "isRecurring": lambda t, s: t.recurrence is not None,
    "recurrenceRule": lambda t, s: t.recurrence or "",
    "id": lambda t, s: t.task_id or "",
    "dependsOn": lambda t, s: _counted(_json_list(t.depends_on_json)),
    "descriptionWithoutTags": lambda t, s: t.description_without_tags,
    "onCompletion": lambda t, s: t.on_completion,
    "lineNumber": lambda t, s: t.line,  # 0-based, as the plugin's taskLocation.lineNumber
    "originalMarkdown": lambda t, s: t.original_markdown,
    "listMarker": lambda t, s: t.list_marker,
    "outlinks": lambda t, s: _counted(t.outlinks),
    **{name: (lambda t, s, n=name: _Obj(n, t)) for name in (*DATES, "file", "status")},  # type: ignore[misc]
}


def field_reader(name: str) -> Node:
    read = _FIELDS[name]
    return lambda s: read(s.task, s)


def task_object(scope: Scope) -> Any:
    """`task` itself."""
    return _Obj("task", scope.task)


def _json_list(text: str) -> list[str]:
    found = json.loads(text or "[]")
    return [str(x) for x in found] if isinstance(found, list) else []


def _counted(items: list[Any]) -> list[Any]:
    hold(len(items) + sum(len(i) if isinstance(i, str) else 1 for i in items))
    return items


def item_of(value: Any, index: Any) -> Any:
    """`value[index]`: an item of an array or a character of a text; undefined (null) past the end."""
    if isinstance(value, _SIZED) and isinstance(index, _NUMBER) and not isinstance(index, bool):
        i = to_integer(index)
        return value[i] if i == index and 0 <= i < len(value) else None
    if value is None:
        raise ExpressionError("cannot read an item of null", 0)
    if isinstance(index, bool) or not isinstance(index, _NUMBER):
        raise ExpressionError("an item is read by its number here", 0)
    return None


def member_of(value: Any, name: str, column: int) -> Any:
    if isinstance(value, _Obj):
        t = value.task
        if value.kind == "task":
            raise AssertionError("task fields are read by _task_field")
        if value.kind == "file":
            return FILE_MEMBERS[name](t.path) if name in FILE_MEMBERS else _counted(t.file_links(name))
        if value.kind == "status":
            return t.status_member(name)
        return _day_of(value)  # .moment
    if isinstance(value, _SIZED) and name == "length":
        return len(value)
    if isinstance(value, TaskLink):
        return value.member(name)
    if isinstance(value, dict) and name in value:  # a date's category
        return value[name]
    raise ExpressionError(f"cannot read .{name} of {_js_type(value)}", column)


@lru_cache(maxsize=8192)
def _day(written: str) -> date | None:
    return iso_day_or_none(written)


def _day_of(value: _Obj) -> date | None:
    """The day a task's date names (None: no date, or not a day)."""
    t = value.task
    written = t.date(value.kind)
    return _day(written) if written is not None else None


def _js_type(value: Any) -> str:
    if value is None:
        return "null"
    kinds = ((bool, "a boolean"), (_NUMBER, "a number"), (str, "a string"), (list, "an array"), (date, "a date"))
    return next((name for kind, name in kinds if isinstance(value, kind)), "an object")


_ALWAYS_TRUE = (_Obj, list, date, TaskLink)


def truthy(value: Any) -> bool:
    if isinstance(value, _ALWAYS_TRUE):
        return True
    return bool(value)


def js_str(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return number_text(value)
    if isinstance(value, list):
        return ",".join(js_str(v) for v in value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, _Obj | TaskLink):  # the plugin's Task.toString(): its line's text; a TasksDate, a Link: none
        return value.task.text if isinstance(value, _Obj) and value.kind == "task" else "[object Object]"
    return str(value)


def _format(day: date, pattern: str, column: int) -> str:
    """Moment's `format` for a day (a task's dates have no time: `HH:mm` is `00:00`); `[text]` is
    written as it is."""
    iso, week = day.isocalendar(), en_week(day)
    tokens = {
        "GGGG": f"{iso[0]:04d}",
        "gggg": f"{week[0]:04d}",
        "YYYY": f"{day.year:04d}",
        "YY": f"{day.year % 100:02d}",
        "MMMM": day.strftime("%B"),
        "MMM": day.strftime("%b"),
        "MM": f"{day.month:02d}",
        "M": str(day.month),
        "DDDD": f"{day.timetuple().tm_yday:03d}",
        "DDD": str(day.timetuple().tm_yday),
        "Do": f"{day.day}{'th' if 10 <= day.day % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(day.day % 10, 'th')}",
        "DD": f"{day.day:02d}",
        "D": str(day.day),
        "dddd": day.strftime("%A"),
        "ddd": day.strftime("%a"),
        "d": str(iso[2] % 7),
        "e": str(iso[2] % 7),
        "E": str(iso[2]),
        "WW": f"{iso[1]:02d}",
        "W": str(iso[1]),
        "ww": f"{week[1]:02d}",
        "w": str(week[1]),
        "Q": str((day.month - 1) // 3 + 1),
        "HH": "00",
        "mm": "00",
    }
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] == "[" and (end := pattern.find("]", i + 1)) != -1:
            out.append(pattern[i + 1 : end])
            i = end + 1
            continue
        for token, text in tokens.items():
            if pattern.startswith(token, i):
                out.append(text)
                i += len(token)
                break
        else:
            if pattern[i].isalpha():
                found = pattern[i]
                known = ", ".join(tokens)
                raise ExpressionError(f"format reads {known} and [text] only (found {found!r})", column)
            out.append(pattern[i])
            i += 1
    size = sum(map(len, out))  # 'MMMM' writes 'September': a long pattern grows
    check_chars(size)
    hold(size)
    return "".join(out)


def en_week(day: date) -> tuple[int, int]:
    """Moment's locale week year and week (`gggg`, `ww`) in its default locale (en): weeks start on
    Sunday, week 1 holds 1 January."""
    sunday = day.toordinal() - day.toordinal() % 7  # in day numbers: the first and last weeks of the
    last = sunday + 6  # calendar reach past 0001-01-01 and 9999-12-31, which `date` cannot hold
    year = date.fromordinal(last).year if last <= _MAX_ORDINAL else 10000  # the week of 1 January is week 1
    first = date(year, 1, 1).toordinal() if year <= 9999 else _MAX_ORDINAL + 1
    return year, (sunday - (first - first % 7)) // 7 + 1


_MAX_ORDINAL = date.max.toordinal()


def category(value: _Obj, today: date) -> dict[str, Any]:
    """`task.due.category` as the plugin's TasksDate gives it: Invalid date (0), Overdue (1),
    Today (2), Future (3), Undated (4), with `groupText` '%%<order>%% <name>'."""
    t = value.task
    written = t.date(value.kind)
    day = _day(written) if written is not None else None
    if written is None:
        name, order = "Undated", 4
    elif day is None:
        name, order = "Invalid date", 0
    else:
        name, order = ("Overdue", 1) if day < today else ("Today", 2) if day == today else ("Future", 3)
    return {"name": name, "sortOrder": order, "groupText": f"%%{order}%% {name}"}


def _day_arg(args: list[Any], column: int) -> date:
    """The day a moment method compares with: a date, or a day written 'YYYY-MM-DD' (moment reads
    the text, as `isSame('2023-06-11', 'day')` in the plugin's examples)."""
    if args and isinstance(args[0], str) and (day := iso_day_or_none(args[0])) is not None:
        return day
    if not args or not isinstance(args[0], date):
        raise ExpressionError("this method takes a date (a task's .moment, moment() or 'YYYY-MM-DD')", column)
    if len(args) > 1 and args[1] not in ("day", "days"):
        raise ExpressionError("dates here are days: the unit may only be 'day'", column)
    return args[0]


def call_method(target: Any, name: str, args: list[Any], column: int) -> Any:
    if isinstance(target, _Obj) and target.kind in DATES and name in METHODS["taskdate"]:
        return _task_date_text(target, name, args, column)
    if isinstance(target, str) and name in METHODS["str"]:
        text_args = [a if isinstance(a, str) else js_str(a) for a in args]
        if len(text_args) == 1 and name == "includes":
            return text_args[0] in target
        if len(text_args) == 1 and name in ("startsWith", "endsWith"):
            return target.startswith(text_args[0]) if name == "startsWith" else target.endswith(text_args[0])
        if name == "replace" and len(text_args) == 2:
            size = len(target) + (len(text_args[1]) - len(text_args[0]) if text_args[0] in target else 0)
            check_chars(size)
            hold(size)
            return target.replace(text_args[0], text_args[1], 1)
        if not args and name in ("toLowerCase", "toUpperCase", "trim"):
            hold(len(target))
            return {"toLowerCase": target.lower, "toUpperCase": target.upper, "trim": target.strip}[name]()
    if isinstance(target, list) and name in METHODS["list"]:
        if name == "includes" and len(args) == 1:
            return args[0] in target
        if name == "join" and len(args) <= 1:
            parts = [js_str(v) for v in target]
            glue = js_str(args[0]) if args else ","
            size = sum(map(len, parts)) + len(glue) * max(0, len(parts) - 1)
            check_chars(size)
            hold(size)
            return glue.join(parts)
    if isinstance(target, date) and name in METHODS["day"]:
        if name == "format" and len(args) == 1 and isinstance(args[0], str):
            return _format(target, args[0], column)
        if name in ("add", "subtract"):
            units = ("day", "days", "week", "weeks")
            if len(args) != 2 or not isinstance(args[0], _NUMBER) or args[1] not in units:
                raise ExpressionError(f"{name} takes a number and 'days' or 'weeks'", column)
            try:
                days = int(args[0]) * (7 if str(args[1]).startswith("week") else 1)
                return target + timedelta(days=days if name == "add" else -days)
            except (ValueError, OverflowError):
                raise ExpressionError(f"{name}() leaves the calendar", column) from None
        other = _day_arg(args, column)
        if name == "diff":
            return (target - other).days
        return {"isBefore": target < other, "isAfter": target > other, "isSame": target == other,
                "isSameOrBefore": target <= other, "isSameOrAfter": target >= other}[name]  # fmt: skip
    raise ExpressionError(f"cannot call .{name}() on {_js_type(target)} with these arguments", column)


def _task_date_text(target: _Obj, name: str, args: list[Any], column: int) -> str:
    """A task's date as text, as the plugin's TasksDate gives it: `format(pattern, fallback='')`,
    `formatAsDate(fallback='')` (YYYY-MM-DD), `formatAsDateAndTime(fallback='')` (YYYY-MM-DD HH:mm);
    the fallback when the task has no such date."""
    if name == "format":
        pattern, rest = (args[0], args[1:]) if args and isinstance(args[0], str) else (None, args)
    else:
        pattern, rest = ("YYYY-MM-DD" if name == "formatAsDate" else "YYYY-MM-DD HH:mm"), args
    if pattern is None or len(rest) > 1:
        wanted = "a format and an optional fallback text" if name == "format" else "an optional fallback text"
        raise ExpressionError(f".{name}() takes {wanted}", column)
    day = _day_of(target)
    if day is None:
        return js_str(rest[0]) if rest else ""
    return _format(day, pattern, column)


def number(value: Any, column: int) -> float:
    if isinstance(value, bool) or not isinstance(value, _NUMBER):
        raise ExpressionError(f"expected a number, found {_js_type(value)}", column)
    return value


def binary(op: str, left: Node, right: Node, column: int) -> Node:
    if op == "??":
        return lambda s: a if (a := left(s)) is not None else right(s)
    if op == "||":
        return lambda s: a if truthy(a := left(s)) else right(s)
    if op == "&&":
        return lambda s: right(s) if truthy(a := left(s)) else a
    if op in ("===", "=="):
        return lambda s: same(left(s), right(s))
    if op in ("!==", "!="):
        return lambda s: not same(left(s), right(s))
    if op == "+":
        return lambda s: _plus(left(s), right(s), column)
    if op in ("<", "<=", ">", ">="):
        return lambda s: _compare(op, left(s), right(s), column)
    arithmetic: dict[str, Callable[[float, float], float]] = {
        "-": lambda a, b: a - b,
        "*": lambda a, b: a * b,
        "/": lambda a, b: a / b if b else float("nan"),
        "%": lambda a, b: a % b if b else float("nan"),
    }
    f = arithmetic[op]
    return lambda s: js_number(f(number(left(s), column), number(right(s), column)))


def same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return type(a) is type(b) and a == b or (isinstance(a, _NUMBER) and isinstance(b, _NUMBER) and a == b)


def _plus(a: Any, b: Any, column: int) -> Any:
    if isinstance(a, str) or isinstance(b, str):
        left, right = js_str(a), js_str(b)
        check_chars(len(left) + len(right))  # `b = a + a; c = b + b; …` doubles a text per name
        hold(len(left) + len(right))  # `b = a + 'x'; c = a + 'y'; …`: each name holds its own text
        current().look()
        return left + right
    return js_number(number(a, column) + number(b, column))


def _compare(op: str, a: Any, b: Any, column: int) -> bool:
    if a is None or b is None:
        return False
    same_kind = (isinstance(a, str) and isinstance(b, str)) or (isinstance(a, date) and isinstance(b, date))
    if not same_kind:
        a, b = number(a, column), number(b, column)
    return bool({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])
