"""The expressions of `filter by function`, `sort by function` and `group by function`: a small,
safe subset of the JavaScript the Tasks plugin runs there, read and evaluated here — no
JavaScript engine, no names but `task` and `moment`, nothing that can reach the process.

Read: literals (numbers, 'strings' and "strings", true, false, null, undefined), `task.<field>`
(the fields below), `moment()` (today) and `moment('YYYY-MM-DD')`, property access with `.` and
`?.`, calls of the listed methods, `!`, unary `-`, `* / %`, `+ -` (strings concatenate),
`< <= > >=`, `=== !== == !=` (`==` is read as `===`), `&&`, `||`, `cond ? a : b`, parentheses.
Anything else — another name, `=>`, `=`, `new`, brackets, a field or method not listed — is a
`QueryError` at its column. Reading `.x` of null while running is one too (write `?.`).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from service.dates import iso_day_or_none
from service.obsidian.tasks_query.record import OPEN_TYPES, TaskRecord

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")|(?P<name>[A-Za-z_$][\w$]*)"
    r"|(?P<op>===|!==|==|!=|<=|>=|&&|\|\||\?\.|[<>!().,+\-*/%?:]))"
)
_PRIORITY_NAMES = ("Highest", "High", "Medium", "Normal", "Low", "Lowest")
_DATES = ("due", "scheduled", "start", "created", "done", "cancelled", "happens")
TASK_FIELDS = ("description", "status", "isDone", "priorityNumber", "priorityName", "urgency", "tags", "heading",
               "isRecurring", "recurrenceRule", "file", "id", "dependsOn", *_DATES)  # fmt: skip
FILE_FIELDS = ("path", "folder", "filename", "filenameWithoutExtension", "root")
STATUS_FIELDS = ("type", "symbol")
DATE_FIELDS = ("moment",)
METHODS = {
    "str": ("includes", "startsWith", "endsWith", "toLowerCase", "toUpperCase", "trim", "replace"),
    "list": ("includes", "join"),
    "day": ("isBefore", "isAfter", "isSame", "isSameOrBefore", "isSameOrAfter", "format", "diff", "add", "subtract"),
    "taskdate": ("formatAsDate",),
}
_ALL_METHODS = frozenset(m for ms in METHODS.values() for m in ms)


_NUMBER = (int, float)  # isinstance tuples: built once, not a union per call
_SIZED = (str, list)


class ExpressionError(Exception):
    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.message, self.column = message, column


@dataclass(frozen=True, slots=True)
class Scope:
    task: TaskRecord
    today: date
    urgency: Callable[[TaskRecord, date], float]


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

    def __call__(self, task: TaskRecord, today: date) -> Any:
        try:
            return self.node(Scope(task, today, self.urgency))
        except ExpressionError as e:
            where = f"{task.path} line {task.line + 1}"
            raise RunError(f"{e.message} (the task at {where})", self.line, e.column, self.text) from None


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
    "urgency": lambda t, s: s.urgency(t, s.today),
    "tags": lambda t, s: ["#" + g for g in t.tags],
    "heading": lambda t, s: t.heading,
    "isRecurring": lambda t, s: t.recurrence is not None,
    "recurrenceRule": lambda t, s: t.recurrence or "",
    "id": lambda t, s: t.task_id or "",
    "dependsOn": lambda t, s: _json_list(t.depends_on_json),
    **{name: (lambda t, s, n=name: _Obj(n, t)) for name in (*_DATES, "file", "status")},  # type: ignore[misc]
}


def _field_reader(name: str) -> Node:
    read = _FIELDS[name]
    return lambda s: read(s.task, s)


def _json_list(text: str) -> list[str]:
    found = json.loads(text or "[]")
    return [str(x) for x in found] if isinstance(found, list) else []


_FILE: dict[str, Callable[[str], str]] = {
    "path": lambda p: p,
    "folder": lambda p: posixpath.dirname(p) + "/" if "/" in p else "/",
    "filename": posixpath.basename,
    "filenameWithoutExtension": lambda p: posixpath.basename(p).removesuffix(".md"),
    "root": lambda p: p.split("/", 1)[0] + "/" if "/" in p else "/",
}


def _member(value: Any, name: str, column: int) -> Any:
    if isinstance(value, _Obj):
        t = value.task
        if value.kind == "task":
            raise AssertionError("task fields are read by _task_field")
        if value.kind == "file":
            return _FILE[name](t.path)
        if value.kind == "status":
            return t.kind.upper() if name == "type" else t.status
        return _day_of(value)  # .moment
    if isinstance(value, _SIZED) and name == "length":
        return len(value)
    raise ExpressionError(f"cannot read .{name} of {_js_type(value)}", column)


@lru_cache(maxsize=8192)
def _day(written: str) -> date | None:
    return iso_day_or_none(written)


def _day_of(value: _Obj) -> date | None:
    """The day a task's date names (None: no date, or not a day)."""
    t = value.task
    written = min(t.happens(), default=None) if value.kind == "happens" else t.date(value.kind)
    return _day(written) if written is not None else None


def _js_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, _NUMBER):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, date):
        return "a date"
    return "an object"


_ALWAYS_TRUE = (_Obj, list, date)


def truthy(value: Any) -> bool:
    if isinstance(value, _ALWAYS_TRUE):
        return True
    return bool(value)


def js_str(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ",".join(js_str(v) for v in value)
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def _format(day: date, pattern: str, column: int) -> str:
    tokens = {
        "YYYY": f"{day.year:04d}",
        "MMMM": day.strftime("%B"),
        "MMM": day.strftime("%b"),
        "MM": f"{day.month:02d}",
        "DD": f"{day.day:02d}",
        "dddd": day.strftime("%A"),
        "ddd": day.strftime("%a"),
    }
    out, i = [], 0
    while i < len(pattern):
        for token, text in tokens.items():
            if pattern.startswith(token, i):
                out.append(text)
                i += len(token)
                break
        else:
            if pattern[i].isalpha():
                found = pattern[i]
                raise ExpressionError(f"format reads YYYY, MMMM, MMM, MM, DD, dddd, ddd only (found {found!r})", column)
            out.append(pattern[i])
            i += 1
    return "".join(out)


def _day_arg(args: list[Any], column: int) -> date:
    if not args or not isinstance(args[0], date):
        raise ExpressionError("this method takes a date (a task's .moment or moment())", column)
    if len(args) > 1 and args[1] not in ("day", "days"):
        raise ExpressionError("dates here are days: the unit may only be 'day'", column)
    return args[0]


def _call(target: Any, name: str, args: list[Any], column: int) -> Any:
    if isinstance(target, _Obj) and target.kind in _DATES and name == "formatAsDate":
        day = _day_of(target)
        return day.isoformat() if day is not None else ""
    if isinstance(target, str) and name in METHODS["str"]:
        text_args = [a if isinstance(a, str) else js_str(a) for a in args]
        if len(text_args) == 1 and name == "includes":
            return text_args[0] in target
        if len(text_args) == 1 and name in ("startsWith", "endsWith"):
            return target.startswith(text_args[0]) if name == "startsWith" else target.endswith(text_args[0])
        if name == "replace" and len(text_args) == 2:
            return target.replace(text_args[0], text_args[1], 1)
        if not args and name in ("toLowerCase", "toUpperCase", "trim"):
            return {"toLowerCase": target.lower, "toUpperCase": target.upper, "trim": target.strip}[name]()
    if isinstance(target, list) and name in METHODS["list"]:
        if name == "includes" and len(args) == 1:
            return args[0] in target
        if name == "join" and len(args) <= 1:
            return (js_str(args[0]) if args else ",").join(js_str(v) for v in target)
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


# -- reading ----------------------------------------------------------------------------------


class _Reader:
    def __init__(self, text: str, offset: int, max_depth: int) -> None:
        self.tokens: list[tuple[str, str, int]] = []  # (kind, text, 1-based column in the line)
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                if text[pos:].strip() == "":
                    break
                column = offset + pos + len(text[pos:]) - len(text[pos:].lstrip())
                raise ExpressionError("not part of the expressions this server reads", column)
            kind = m.lastgroup or "op"
            self.tokens.append((kind, m.group(kind), offset + m.start(kind)))
            pos = m.end()
        self.i, self.depth, self.max_depth, self.end = 0, 0, max_depth, offset + len(text)

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.i] if self.i < len(self.tokens) else ("end", "", self.end)

    def take(self, text: str | None = None) -> tuple[str, str, int]:
        token = self.peek()
        if text is not None and token[1] != text:
            found = token[1] or "the end of the expression"
            raise ExpressionError(f"expected {text!r} here, found {found!r}", token[2])
        self.i += 1
        return token

    def expression(self) -> Node:
        self.depth += 1
        if self.depth > self.max_depth:
            raise ExpressionError(f"nested deeper than {self.max_depth}", self.peek()[2])
        cond = self.binary(0)
        if self.peek()[1] == "?":
            self.take()
            yes = self.expression()
            self.take(":")
            no = self.expression()
            self.depth -= 1
            return lambda s: yes(s) if truthy(cond(s)) else no(s)
        self.depth -= 1
        return cond

    _LEVELS = (("||",), ("&&",), ("===", "!==", "==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%"))

    def binary(self, level: int) -> Node:
        if level == len(self._LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek()[1] in self._LEVELS[level] and self.peek()[0] == "op":
            _, op, column = self.take()
            right = self.binary(level + 1)
            left = _binary(op, left, right, column)
        return left

    def unary(self) -> Node:
        kind, text, column = self.peek()
        if kind == "op" and text in ("!", "-"):
            self.take()
            self.depth += 1
            if self.depth > self.max_depth:
                raise ExpressionError(f"nested deeper than {self.max_depth}", column)
            inner = self.unary()
            self.depth -= 1
            if text == "!":
                return lambda s: not truthy(inner(s))
            return lambda s: -_number(inner(s), column)
        return self.postfix()

    def postfix(self) -> Node:
        node, path = self.primary()
        while True:
            kind, text, column = self.peek()
            if text in (".", "?."):
                self.take()
                nkind, name, ncolumn = self.take()
                if nkind != "name":
                    raise ExpressionError("expected a property name here", ncolumn)
                if self.peek()[1] == "(":
                    node, path = self.call(node, name, ncolumn, text == "?."), None
                else:
                    node, path = self.member(node, path, name, ncolumn, text == "?.")
            elif text == "(":
                raise ExpressionError("only the listed methods may be called", column)
            else:
                return node

    def member(self, node: Node, path: str | None, name: str, column: int, optional: bool) -> tuple[Node, str | None]:
        """`.name` of `node`; `path` is where `node` comes from when it is `task` or one of its
        objects (so that a field that does not exist is an error before anything runs)."""
        objects = {"task.file": FILE_FIELDS, "task.status": STATUS_FIELDS}
        if path == "task":
            if name not in TASK_FIELDS:
                raise ExpressionError(f"task.{name} is not a field this server provides ({', '.join(TASK_FIELDS)})",
                                      column)  # fmt: skip
            return _field_reader(name), f"task.{name}"
        if path in objects and name not in objects[path]:
            raise ExpressionError(f"{path}.{name} is not a field this server provides ({', '.join(objects[path])})",
                                  column)  # fmt: skip
        if path is not None and path.removeprefix("task.") in _DATES and name not in DATE_FIELDS:
            raise ExpressionError(f"{path} has .moment and .formatAsDate() here", column)
        if path not in objects and (path is None or path.removeprefix("task.") not in _DATES) and name != "length":
            raise ExpressionError(f"cannot read .{name} here (strings and arrays have .length)", column)

        def read(s: Scope) -> Any:
            value = node(s)
            if value is None and optional:
                return None
            return _member(value, name, column)

        return read, (f"{path}.{name}" if path in objects else None)

    def call(self, node: Node, name: str, column: int, optional: bool) -> Node:
        if name not in _ALL_METHODS:
            raise ExpressionError(f".{name}() is not a method this server provides", column)
        self.take("(")
        args: list[Node] = []
        while self.peek()[1] != ")":
            args.append(self.expression())
            if self.peek()[1] != ")":
                self.take(",")
        self.take(")")

        def run(s: Scope) -> Any:
            target = node(s)
            if target is None and optional:
                return None
            return _call(target, name, [a(s) for a in args], column)

        return run

    def primary(self) -> tuple[Node, str | None]:
        kind, text, column = self.take()
        if kind == "num":
            value: Any = float(text) if "." in text else int(text)
            return (lambda s: value), None
        if kind == "str":
            literal = re.sub(r"\\(.)", r"\1", text[1:-1])
            return (lambda s: literal), None
        if kind == "name":
            constants = {"true": True, "false": False, "null": None, "undefined": None}
            if text in constants:
                constant = constants[text]
                return (lambda s: constant), None
            if text == "task":
                return (lambda s: _Obj("task", s.task)), "task"
            if text == "moment":
                return self.moment(column), None
            raise ExpressionError(f"{text!r} is not a name this server knows (only task and moment())", column)
        if text == "(":
            inner = self.expression()
            self.take(")")
            return inner, None
        found = text or "the end of the expression"
        raise ExpressionError(f"expected a value here, found {found!r}", column)

    def moment(self, column: int) -> Node:
        self.take("(")
        if self.peek()[1] == ")":
            self.take()
            return lambda s: s.today
        kind, text, at = self.take()
        day = iso_day_or_none(text[1:-1]) if kind == "str" else None
        if day is None:
            raise ExpressionError("moment() takes nothing or a 'YYYY-MM-DD' date", at)
        self.take(")")
        return lambda s: day


def _number(value: Any, column: int) -> float:
    if isinstance(value, bool) or not isinstance(value, _NUMBER):
        raise ExpressionError(f"expected a number, found {_js_type(value)}", column)
    return value


def _binary(op: str, left: Node, right: Node, column: int) -> Node:
    if op == "||":
        return lambda s: a if truthy(a := left(s)) else right(s)
    if op == "&&":
        return lambda s: right(s) if truthy(a := left(s)) else a
    if op in ("===", "=="):
        return lambda s: _same(left(s), right(s))
    if op in ("!==", "!="):
        return lambda s: not _same(left(s), right(s))
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
    return lambda s: f(_number(left(s), column), _number(right(s), column))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return type(a) is type(b) and a == b or (isinstance(a, _NUMBER) and isinstance(b, _NUMBER) and a == b)


def _plus(a: Any, b: Any, column: int) -> Any:
    if isinstance(a, str) or isinstance(b, str):
        return js_str(a) + js_str(b)
    return _number(a, column) + _number(b, column)


def _compare(op: str, a: Any, b: Any, column: int) -> bool:
    if a is None or b is None:
        return False
    same_kind = (isinstance(a, str) and isinstance(b, str)) or (isinstance(a, date) and isinstance(b, date))
    if not same_kind:
        a, b = _number(a, column), _number(b, column)
    return bool({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])


def compile_expression(text: str, offset: int, max_depth: int) -> Node:
    """`text` (which starts at 1-based column `offset` of its line) read into a function of a task."""
    if not text.strip():
        raise ExpressionError("this instruction needs an expression", offset)
    reader = _Reader(text, offset, max_depth)
    node = reader.expression()
    kind, found, column = reader.peek()
    if kind != "end":
        raise ExpressionError(f"unexpected {found!r} here", column)
    return node
