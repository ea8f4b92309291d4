"""The expressions of `filter by function`, `sort by function` and `group by function`: a small,
safe subset of the JavaScript the Tasks plugin runs there, read and evaluated here — no
JavaScript engine, no names but `task` and `moment`, nothing that can reach the process.

Read: literals (numbers, 'strings' and "strings", true, false, null, undefined), `task.<field>`
(the fields below), `moment()` (today) and `moment('YYYY-MM-DD')`, property access with `.` and
`?.`, calls of the listed methods (arrow functions `(x) => …` as the argument of `find`,
`filter`, `some`, `every`, `map`), `!`, unary `-`, `* / %`, `+ -` (strings concatenate),
`< <= > >=`, `=== !== == !=` (`==` is read as `===`), `&&`, `||`, `??`, `cond ? a : b`,
parentheses, and `const x = …; … return …` (a text with `return` is a function body for the
plugin). Anything else — another name, a block, `new`, brackets, a field or method not listed —
is a `QueryError` at its column. Reading `.x` of null while running is one too (write `?.`).
"""

from __future__ import annotations

import re
from typing import Any

from service.budget import check_chars, hold
from service.dates import iso_day_or_none
from service.obsidian.tasks_query.dependencies import ALL_TASKS
from service.obsidian.tasks_query.expression_methods import Arrow, call, size_of
from service.obsidian.tasks_query.expression_values import (
    ALL_METHODS,
    ANYWHERE,
    CATEGORY_FIELDS,
    DATE_FIELDS,
    DATES,
    FILE_FIELDS,
    STATUS_FIELDS,
    TASK_FIELDS,
    ExpressionError,
    Function,
    Node,
    RunError,
    Scope,
    binary,
    category,
    field_reader,
    item_of,
    js_str,
    member_of,
    number,
    task_object,
    truthy,
)
from service.obsidian.tasks_query.js_numbers import literal as number_literal
from service.obsidian.tasks_query.js_templates import TooDeep, substitution_end, template_end

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<name>[A-Za-z_$][\w$]*)"
    r"|(?P<op>===|!==|==|!=|<=|>=|=>|&&|\|\||\?\?|\?\.|[<>!().,+\-*/%?:;=\[\]{}]))"
)


_SPACE = re.compile(r"\s*")
_COMMENT = re.compile(r"\{\{!.*?\}\}", re.DOTALL)
_SKIPPED = object()  # the rest of an optional chain after a null (read as undefined at its end)


def _unskipped(node: Node) -> Node:
    return lambda s: None if (v := node(s)) is _SKIPPED else v


# -- reading ----------------------------------------------------------------------------------


class _Reader:
    def __init__(self, text: str, offset: int, max_depth: int) -> None:
        self.tokens: list[tuple[str, str, int]] = []  # (kind, text, 1-based column in the line)
        pos = 0
        while pos < len(text):
            start = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
            if text.startswith("`", start):  # a template string: its end found as JavaScript finds it
                end = self._template_end(text, start, offset, max_depth)
                self.tokens.append(("tpl", text[start:end], offset + start))
                pos = end
                continue
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
        self.names: dict[str, str | None] = {}  # names in scope (`const`, arrow parameters) -> their task path
        self.chain: tuple[int, int, str | None] = (-1, -1, None)  # the last `a.b.c` read: tokens [from, to), path

    @staticmethod
    def _template_end(text: str, start: int, offset: int, max_depth: int) -> int:
        try:
            end = template_end(text, start, max_depth)
        except TooDeep:
            raise ExpressionError(f"template strings nested deeper than {max_depth}", offset + start) from None
        if end is None:
            raise ExpressionError("this template string is not closed", offset + start)
        return end

    def program(self) -> Node:
        """`const x = …; if (…) return …; … return …` (the plugin runs a text with `return` as a
        function body; an `if` body is one `return`, with or without braces), or one expression."""
        steps: list[tuple[str, Node, Node | None]] = []  # (name, value, None) or ("", result, condition)
        while self.peek()[0] == "name" and self.peek()[1] in ("const", "let", "var", "if"):
            if self.take()[1] == "if":
                self.take("(")
                condition = self.expression()
                self.take(")")
                braced = self.peek()[1] == "{"
                if braced:
                    self.take("{")
                self.take("return")
                steps.append(("", self.expression(), condition))
                if self.peek()[1] == ";":
                    self.take()
                if braced:
                    self.take("}")
                continue
            kind, name, column = self.take()
            if kind != "name" or name in ("task", "moment", "return", "if"):
                raise ExpressionError("expected a new name here", column)
            self.take("=")
            start = self.i
            value = self.expression()
            first, last, path = self.chain
            self.names[name] = path if (first, last) == (start, self.i) else None
            self.take(";")
            steps.append((name, value, None))
        if self.peek()[0] == "name" and self.peek()[1] == "return":
            self.take()
        body = self.expression()
        if self.peek()[1] == ";":
            self.take()
        if not steps:
            return body

        def run(s: Scope) -> Any:
            for name, value, condition in steps:
                if condition is None:
                    s = s.naming({name: value(s)})
                elif truthy(condition(s)):
                    return value(s)
            return body(s)

        return run

    def peek(self, ahead: int = 0) -> tuple[str, str, int]:
        i = self.i + ahead
        return self.tokens[i] if i < len(self.tokens) else ("end", "", self.end)

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

    _LEVELS = (("??",), ("||",), ("&&",), ("===", "!==", "==", "!="), ("<", "<=", ">", ">="), ("+", "-"),
               ("*", "/", "%"))  # fmt: skip

    def binary(self, level: int) -> Node:
        if level == len(self._LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek()[1] in self._LEVELS[level] and self.peek()[0] == "op":
            _, op, column = self.take()
            right = self.binary(level + 1)
            left = binary(op, left, right, column)
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
            return lambda s: -number(inner(s), column)
        return self.postfix()

    def postfix(self) -> Node:
        start = self.i
        node, path = self.primary()
        optional_seen = False  # a?.b.c(): null at `?.` skips the rest of the chain (JavaScript)
        while True:
            self.chain = (start, self.i, path)
            kind, text, column = self.peek()
            if text in (".", "?."):
                optional_seen = optional_seen or text == "?."
                self.take()
                nkind, name, ncolumn = self.take()
                if nkind != "name":
                    raise ExpressionError("expected a property name here", ncolumn)
                if self.peek()[1] == "(":
                    node, path = self.call(node, name, ncolumn, text == "?."), None
                else:
                    node, path = self.member(node, path, name, ncolumn, text == "?.")
            elif text == "[":  # an item of an array or text: tag.split('/')[0]
                if path is not None and (path in ("task", "task.file", "task.status") or path.endswith(".category")
                                         or path.removeprefix("task.") in DATES):  # fmt: skip
                    raise ExpressionError(f"read the fields of {path} with '.', not '[ ]'", column)
                self.take()
                index = self.expression()
                self.take("]")
                node, path = self._item(node, index, column), None
            elif text == "(":
                raise ExpressionError("only the listed methods may be called", column)
            else:
                return node if not optional_seen else _unskipped(node)

    @staticmethod
    def _item(node: Node, index: Node, column: int) -> Node:
        def read(s: Scope) -> Any:
            try:
                value = node(s)
                return _SKIPPED if value is _SKIPPED else item_of(value, index(s))
            except ExpressionError as e:
                raise ExpressionError(e.message, column) from None

        return read

    def member(self, node: Node, path: str | None, name: str, column: int, optional: bool) -> tuple[Node, str | None]:
        """`.name` of `node`; `path` is where `node` comes from when it is `task` or one of its
        objects (so that a field that does not exist is an error before anything runs)."""
        objects = {"task.file": FILE_FIELDS, "task.status": STATUS_FIELDS,
                   **{f"task.{d}.category": CATEGORY_FIELDS for d in DATES}}  # fmt: skip
        if path == "task":
            if name not in TASK_FIELDS:
                raise ExpressionError(f"task.{name} is not a field this server provides ({', '.join(TASK_FIELDS)})",
                                      column)  # fmt: skip
            return field_reader(name), f"task.{name}"
        if path in objects and name not in objects[path]:
            raise ExpressionError(f"{path}.{name} is not a field this server provides ({', '.join(objects[path])})",
                                  column)  # fmt: skip
        if path is not None and path.removeprefix("task.") in DATES and name not in DATE_FIELDS:
            raise ExpressionError(f"{path} has .moment, .category, .format(), .formatAsDate() and "
                                  ".formatAsDateAndTime() here", column)  # fmt: skip
        if path not in objects and (path is None or path.removeprefix("task.") not in DATES) and name not in ANYWHERE:
            raise ExpressionError(f"cannot read .{name} here (only {', '.join(ANYWHERE)})", column)
        of_date = name == "category" and path is not None and path.removeprefix("task.") in DATES

        def read(s: Scope) -> Any:
            value = node(s)
            if value is _SKIPPED or (value is None and optional):
                return _SKIPPED
            return category(value, s.today) if of_date else member_of(value, name, column)

        return read, (f"{path}.{name}" if path in objects or of_date else None)

    def call(self, node: Node, name: str, column: int, optional: bool) -> Node:
        if name not in ALL_METHODS:
            raise ExpressionError(f".{name}() is not a method this server provides", column)
        args = self._arguments()

        def run(s: Scope) -> Any:
            target = node(s)
            if target is _SKIPPED or (target is None and optional):
                return _SKIPPED
            return call(target, name, [a(s) for a in args], column)

        return run

    def primary(self) -> tuple[Node, str | None]:
        kind, text, column = self.take()
        if kind == "num":
            value: Any = number_literal(text)
            return (lambda s: value), None
        if kind == "str":
            literal = re.sub(r"\\(.)", r"\1", text[1:-1])
            return (lambda s: literal), None
        if kind == "name" and self.peek()[1] == "=>":
            return self.arrow((text,)), None
        if text == "(" and (params := self._arrow_params()) is not None:
            return self.arrow(params), None
        if kind == "name" and text in self.names:
            if self.peek()[1] == "(":  # a declared arrow function called: label(4, 'Undated')
                return self._call_declared(text, column), None
            return (lambda s: (s.names or {})[text]), self.names[text]
        if kind == "tpl":
            return self._template(text, column), None
        if kind == "name":
            constants = {"true": True, "false": False, "null": None, "undefined": None}
            if text in constants:
                constant = constants[text]
                return (lambda s: constant), None
            if text == "task":
                return task_object, "task"
            if text == "moment":
                return self.moment(column), None
            if text == "query" and self.peek()[1] == "." and self.peek(1)[1] == "allTasks":
                before = [t[1] for t in self.tokens[max(0, self.i - 3) : self.i - 1]]
                if before not in (["isBlocked", "("], ["isBlocking", "("]) or self.peek(2)[1] != ")":
                    raise ExpressionError("query.allTasks is read here only as task.isBlocked(query.allTasks) "
                                          "or task.isBlocking(query.allTasks)", column)  # fmt: skip
                self.take(), self.take()
                return (lambda s: ALL_TASKS), "query.allTasks"
            raise ExpressionError(f"{text!r} is not a name this server knows (only task and moment())", column)
        if text == "(":
            inner = self.expression()
            self.take(")")
            return inner, None
        if text == "[":  # an array: "'x' in ['a', 'b']" as ['a', 'b'].includes(x), group by function ['a', 'b']
            items: list[Node] = []
            while self.peek()[1] != "]":
                items.append(self.expression())
                if self.peek()[1] != "]":
                    self.take(",")
            self.take("]")
            return (lambda s: _built([item(s) for item in items])), None
        found = text or "the end of the expression"
        raise ExpressionError(f"expected a value here, found {found!r}", column)

    def _arguments(self) -> list[Node]:
        """A call's `(a, b, …)`, each an expression."""
        self.take("(")
        args: list[Node] = []
        while self.peek()[1] != ")":
            args.append(self.expression())
            if self.peek()[1] != ")":
                self.take(",")
        self.take(")")
        return args

    def _call_declared(self, name: str, column: int) -> Node:
        args = self._arguments()

        def run(s: Scope) -> Any:
            f = (s.names or {})[name]
            if not isinstance(f, Arrow):
                raise ExpressionError(f"{name} is not a function", column)
            value = f(*(a(s) for a in args))
            hold(size_of(value))  # the arrow gave back what it built; what it returns is kept here
            return value

        return run

    def _template(self, text: str, column: int) -> Node:
        """A template string: its text, with each `${expression}` read as any other expression."""
        parts: list[str | Node] = []  # text as written, or an expression
        body, i, literal = text[1:-1], 0, ""
        while i < len(body):
            if body.startswith("${", i):
                end = substitution_end(body, i + 2, self.max_depth)  # read whole by the tokenizer
                if end is None:
                    raise ExpressionError("a '${' in this template string is not closed", column + 1 + i)
                j = end + 1
                inner = _Reader(body[i + 2 : end], column + 3 + i, self.max_depth - self.depth)
                inner.names = dict(self.names)
                node = inner.expression()
                if inner.peek()[0] != "end":
                    raise ExpressionError(f"unexpected {inner.peek()[1]!r} here", inner.peek()[2])
                parts += [literal, node]
                literal, i = "", j
            elif body[i] == "\\" and i + 1 < len(body):
                literal, i = literal + body[i + 1], i + 2
            else:
                literal, i = literal + body[i], i + 1
        parts.append(literal)

        def run(s: Scope) -> str:
            texts = [part if isinstance(part, str) else js_str(part(s)) for part in parts]
            size = sum(map(len, texts))
            check_chars(size)
            hold(size)
            return "".join(texts)

        return run

    def _arrow_params(self) -> tuple[str, ...] | None:
        """After '(': the parameters of an arrow function `(a, b) => …` (consumed), or None (nothing
        consumed) when the parenthesis opens something else."""
        i, params = self.i, []
        while i < len(self.tokens) and self.tokens[i][0] == "name":
            params.append(self.tokens[i][1])
            i += 1
            if i < len(self.tokens) and self.tokens[i][1] == ",":
                i += 1
        if i + 1 < len(self.tokens) and self.tokens[i][1] == ")" and self.tokens[i + 1][1] == "=>":
            self.i = i + 1
            return tuple(params)
        return None

    def arrow(self, params: tuple[str, ...]) -> Node:
        """`params => body` (the parameters read): a function value for `find`, `filter`, `map`, …"""
        self.take("=>")
        if self.peek()[1] == "{":
            raise ExpressionError("an arrow function's body is one expression here, not a block", self.peek()[2])
        outer = dict(self.names)
        self.names.update(dict.fromkeys(params))
        body = self.expression()
        self.names = outer
        return lambda s: Arrow(params, body, s)

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


def compile_expression(text: str, offset: int, max_depth: int) -> Node:
    """`text` (which starts at 1-based column `offset` of its line) read into a function of a task."""
    if not text.strip():
        raise ExpressionError("this instruction needs an expression", offset)
    text = _COMMENT.sub(lambda m: " " * len(m.group()), text)  # {{! … }}: a comment, as the plugin reads it
    reader = _Reader(text, offset, max_depth)
    node = reader.program()
    kind, found, column = reader.peek()
    if kind != "end":
        raise ExpressionError(f"unexpected {found!r} here", column)
    return node


__all__ = ["ExpressionError", "Function", "RunError", "Scope", "compile_expression", "js_str", "truthy"]


def _built(items: list[Any]) -> list[Any]:
    """An array the expression wrote, counted among the values it builds (`[limits] max_eval_bytes`)."""
    hold(size_of(items))
    return items
