"""The DQL lexer and expression parser, with source positions for every error.

Tokens: numbers, "text" (backslash escapes), `// comments` to the end of a line (skipped, as
Dataview's query parser skips them between clauses), identifiers (letters, digits, `_` and `-`, as in
Dataview, so `simple-field` is one name), `[[links]]`, `#tags`, operators and the raw
literals `date(...)` / `dur(...)` (`date(2021-04-18)`, `date(today)`, `dur(1 day 3h)`).
Expressions parse into tuples (see `Node`) by precedence: or < and < comparison < + - <
* / % < unary ! - < postfix (`.field`, `[index]`, `(call)`) < atoms (literals, lists, objects,
lambdas `(x, y) => ...`, parentheses). A syntax error is `DqlError` with the offset, line and
column. Touches nothing outside itself.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from service.budget import configured
from service.dataview.values import parse_date, parse_duration, parse_link

Node = tuple[Any, ...]


class DqlError(Exception):
    def __init__(self, message: str, source: str, offset: int) -> None:
        self.message = message
        self.offset = max(0, min(offset, len(source)))
        self.line = source.count("\n", 0, self.offset) + 1
        self.column = self.offset - (source.rfind("\n", 0, self.offset) + 1) + 1
        super().__init__(f"{message} (line {self.line}, column {self.column})")


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # num | str | ident | link | tag | op | lit | end
    text: str
    pos: int
    value: Any = None


_TOKEN = re.compile(
    r"""(?P<ws>\s+|//[^\n]*)
    |(?P<num>\d+(?:\.\d+)?)
    |(?P<str>"(?:[^"\\]|\\.)*")
    |(?P<link>!?\[\[[^\]]*\]\])
    |(?P<tag>\#[^\s,()\[\]"#]+)
    |(?P<ident>[^\W\d][\w\-]*)
    |(?P<op>=>|!=|<=|>=|[=<>+\-*/%!&|()\[\]{},.:])""",
    re.VERBOSE | re.UNICODE,
)
_RAW_DATES = {"today", "now", "tomorrow", "yesterday", "sow", "eow", "som", "eom", "soy", "eoy"}


def date_keyword(word: str, now: dt.datetime | None = None) -> dt.datetime | None:
    """`today`, `now`, `sow` (start of week) ... as Dataview's `date(...)` literals."""
    now = now or dt.datetime.now()
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    word = word.strip().lower()
    if word == "now":
        return now
    if word == "today":
        return today
    if word == "tomorrow":
        return today + dt.timedelta(days=1)
    if word == "yesterday":
        return today - dt.timedelta(days=1)
    if word in ("sow", "eow"):
        start = today - dt.timedelta(days=today.weekday())
        return start if word == "sow" else start + dt.timedelta(days=7) - dt.timedelta(milliseconds=1)
    if word in ("som", "eom"):
        start = today.replace(day=1)
        if word == "som":
            return start
        nxt = start.replace(year=start.year + (start.month == 12), month=start.month % 12 + 1)
        return nxt - dt.timedelta(milliseconds=1)
    if word in ("soy", "eoy"):
        start = today.replace(month=1, day=1)
        return start if word == "soy" else start.replace(year=start.year + 1) - dt.timedelta(milliseconds=1)
    return None


def tokenize(source: str) -> list[Token]:
    out: list[Token] = []
    pos = 0
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if m is None:
            raise DqlError(f"unexpected character {source[pos]!r}", source, pos)
        kind = m.lastgroup or "op"
        text = m.group()
        if kind == "ident" and text.lower() in ("date", "dur") and source.startswith("(", m.end()):
            raw = _raw_literal(source, m.end(), text.lower())
            if raw is not None:
                value, end = raw
                out.append(Token("lit", source[pos:end], pos, value))
                pos = end
                continue
        if kind == "str":
            out.append(Token("str", text, pos, _unescape(text[1:-1])))
        elif kind == "num":
            out.append(Token("num", text, pos, float(text) if "." in text else int(text)))
        elif kind == "link":
            link = parse_link(text)
            if link is None:
                raise DqlError(f"malformed link {text}", source, pos)
            out.append(Token("link", text, pos, link))
        elif kind != "ws":
            out.append(Token(kind, text, pos))
        pos = m.end()
    out.append(Token("end", "", len(source)))
    return out


def _unescape(text: str) -> str:
    """A string literal's text as Dataview reads it (`EXPRESSION.escapeCharacter`): `\\"` is a quote
    and `\\\\` one backslash; any other escape keeps its backslash, so `"\\d+"` is the regex `\\d+`
    (and `"\\n"` a backslash and an n: Dataview's strings have no control escapes)."""
    return re.sub(r"\\(.)", lambda m: m.group(1) if m.group(1) in '"\\' else m.group(0), text, flags=re.DOTALL)


def _raw_literal(source: str, open_at: int, kind: str) -> tuple[Any, int] | None:
    close = source.find(")", open_at)
    if close < 0:
        return None
    inner = source[open_at + 1 : close].strip()
    value: Any
    try:
        if kind == "date":
            value = parse_date(inner) if inner.lower() not in _RAW_DATES else ("date-keyword", inner.lower())
        else:
            value = parse_duration(inner)
    except (OverflowError, ValueError):  # dur(10^400 days): not a literal
        value = None
    return (value, close + 1) if value is not None else None


_COMPARE = {"=", "!=", "<", ">", "<=", ">="}
MAX_DEPTH = 64  # nested parentheses, lists, calls and unary operators (Python's stack stays far away)


def max_depth() -> int:
    """`[limits] max_depth`, at most MAX_DEPTH (each level costs the parser ~9 stack frames)."""
    return min(configured().max_depth, MAX_DEPTH)


class Parser:
    """Recursive descent over the tokens; `query.py` extends it with the query grammar."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = tokenize(source)
        self.i = 0
        self.depth = 0
        self.max_depth = max_depth()

    # -- token helpers ---------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return tok

    def fail(self, message: str, tok: Token | None = None) -> DqlError:
        tok = tok or self.tok
        found = "end of query" if tok.kind == "end" else repr(tok.text)
        return DqlError(f"{message}, found {found}", self.source, tok.pos)

    def is_op(self, *ops: str) -> bool:
        return self.tok.kind == "op" and self.tok.text in ops

    def is_word(self, *words: str) -> bool:
        return self.tok.kind == "ident" and self.tok.text.upper() in words

    def expect_op(self, op: str) -> Token:
        if not self.is_op(op):
            raise self.fail(f"expected {op!r}")
        return self.take()

    # -- expressions -----------------------------------------------------------------------
    def expression(self) -> Node:
        self._enter()
        try:
            return self._or()
        finally:
            self.depth -= 1

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > self.max_depth:
            raise self.fail(f"the expression nests deeper than {self.max_depth} levels")

    def _or(self) -> Node:
        left = self._and()
        while self.is_op("|") or self.is_word("OR"):
            self.take()
            left = ("or", left, self._and())
        return left

    def _and(self) -> Node:
        left = self._compare()
        while self.is_op("&") or self.is_word("AND"):
            self.take()
            left = ("and", left, self._compare())
        return left

    def _compare(self) -> Node:
        left = self._additive()
        while self.tok.kind == "op" and self.tok.text in _COMPARE:
            op = self.take().text
            left = ("bin", op, left, self._additive())
        return left

    def _additive(self) -> Node:
        left = self._multiplicative()
        while self.is_op("+", "-"):
            op = self.take().text
            left = ("bin", op, left, self._multiplicative())
        return left

    def _multiplicative(self) -> Node:
        left = self._unary()
        while self.is_op("*", "/", "%"):
            op = self.take().text
            left = ("bin", op, left, self._unary())
        return left

    def _unary(self) -> Node:
        if self.is_op("!", "-"):
            kind = "not" if self.take().text == "!" else "neg"
            self._enter()
            try:
                return (kind, self._unary())
            finally:
                self.depth -= 1
        return self._postfix()

    def _postfix(self) -> Node:
        node = self._atom()
        while True:
            if self.is_op("."):
                self.take()
                name = self.take()
                if name.kind not in ("ident", "num"):
                    raise self.fail("expected a field name after '.'", name)
                node = ("field", node, name.text)
            elif self.is_op("["):
                self.take()
                index = self.expression()
                self.expect_op("]")
                node = ("index", node, index)
            elif self.is_op("(") and node[0] in ("var", "field", "index", "lambda"):
                self.take()
                node = ("call", node, self._items(")"))
            else:
                return node

    def _items(self, closer: str) -> list[Node]:
        items: list[Node] = []
        if self.is_op(closer):
            self.take()
            return items
        while True:
            items.append(self.expression())
            if self.is_op(","):
                self.take()
                continue
            self.expect_op(closer)
            return items

    def _atom(self) -> Node:
        tok = self.tok
        if tok.kind in ("num", "str"):
            self.take()
            return ("lit", tok.value)
        if tok.kind == "lit":
            self.take()
            if isinstance(tok.value, tuple):
                return ("datekw", tok.value[1])
            return ("lit", tok.value)
        if tok.kind == "link":
            self.take()
            return ("link", tok.value)
        if tok.kind == "ident":
            self.take()
            low = tok.text.lower()
            if low in ("true", "false"):
                return ("lit", low == "true")
            if low == "null":
                return ("lit", None)
            return ("var", tok.text)
        if self.is_op("("):
            lam = self._lambda()
            if lam is not None:
                return lam
            self.take()
            inner = self.expression()
            self.expect_op(")")
            return inner
        if self.is_op("["):
            self.take()
            return ("list", self._items("]"))
        if self.is_op("{"):
            return self._object()
        raise self.fail("expected a value")

    def _lambda(self) -> Node | None:
        j, params = self.i + 1, []
        while self.tokens[j].kind == "ident":
            params.append(self.tokens[j].text)
            if self.tokens[j + 1].kind == "op" and self.tokens[j + 1].text == ",":
                j += 2
                continue
            j += 1
            break
        if not (self.tokens[j].text == ")" and self.tokens[j + 1].text == "=>"):
            return None
        self.i = j + 2
        return ("lambda", tuple(params), self.expression())

    def _object(self) -> Node:
        self.expect_op("{")
        pairs: list[tuple[str, Node]] = []
        while not self.is_op("}"):
            key = self.take()
            if key.kind not in ("ident", "str"):
                raise self.fail("expected an object key", key)
            self.expect_op(":")
            pairs.append((key.value if key.kind == "str" else key.text, self.expression()))
            if not self.is_op(","):
                break
            self.take()
        self.expect_op("}")
        return ("object", pairs)


def parse_expression(source: str) -> Node:
    parser = Parser(source)
    node = parser.expression()
    if parser.tok.kind != "end":
        raise parser.fail("unexpected text after the expression")
    check_depth(node, source)
    return node


MAX_TREE_DEPTH = 300  # long operator chains nest too: evaluation recurses once per level


def check_depth(node: Any, source: str) -> None:
    """Refuse a tree deeper than MAX_TREE_DEPTH (less under a lower `[limits] max_depth`),
    measured without recursion."""
    limit = min(MAX_TREE_DEPTH, 5 * configured().max_depth)
    stack: list[tuple[Any, int]] = [(node, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            raise DqlError(f"the expression is deeper than {limit} levels", source, 0)
        if isinstance(item, (tuple, list)):
            stack.extend((child, depth + 1) for child in item if isinstance(child, (tuple, list)))
