"""Boolean lines of a Tasks query: filters, each between delimiters (`( )`, `[ ]`, `{ }` or
`" "`), joined by `AND`, `OR`, `XOR`, `NOT`, `AND NOT`, `OR NOT` (upper case, spaces around).
Operators bind as the Tasks documentation orders them: NOT first, then XOR, then AND, then OR;
delimiters nest. Columns in errors are 1-based positions in the line."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service.obsidian.tasks_query.filters import Context, Filter, QueryError, Vector, evaluate, parse_filter

if TYPE_CHECKING:
    from service.obsidian.tasks_query.columns import Bools, Columns, Ints

_CLOSE = {"(": ")", "[": "]", "{": "}", '"': '"'}
_BINARY = ("OR", "AND", "XOR")  # loosest first


def is_boolean(line: str) -> bool:
    return line[:1] in _CLOSE or line.startswith(("NOT ", "NOT("))


class _Reader:
    def __init__(self, text: str, ctx: Context) -> None:
        self.text, self.ctx, self.max_depth = text, ctx, ctx.max_depth
        self.pos = 0

    def _skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] == " ":
            self.pos += 1

    def _word(self, word: str) -> bool:
        end = self.pos + len(word)
        if self.text.startswith(word, self.pos) and (end == len(self.text) or self.text[end] in ' ([{"'):
            self.pos = end
            return True
        return False

    def expression(self, level: int = 0, depth: int = 0) -> Filter:
        if depth > self.max_depth:
            raise QueryError(f"nested deeper than {self.max_depth}", self.pos + 1)
        if level == len(_BINARY):
            return self.unary(depth)
        left = self.expression(level + 1, depth)
        op = _BINARY[level]
        while True:
            self._skip()
            if not self._word(op):
                return left
            self._skip()
            right = self.expression(level + 1, depth)
            left = _combine(op, left, right)

    def unary(self, depth: int) -> Filter:
        self._skip()
        if self._word("NOT"):
            inner = self.unary(depth + 1)
            sql = (f"NOT COALESCE(({inner.sql[0]}), 0)", inner.sql[1]) if inner.sql and inner.exact else None
            return Filter(f"NOT ({inner.explain})", lambda t: not inner.test(t), sql, heading=inner.heading,
                          vector=lambda cols, idx: ~evaluate(inner, cols, idx))  # fmt: skip
        return self.operand(depth)

    def operand(self, depth: int) -> Filter:
        start = self.pos
        opening = self.text[start : start + 1]
        if opening not in _CLOSE:
            found = self.text[start:].split(" ", 1)[0] or "the end of the line"
            raise QueryError(f"expected a filter in '(' ')' here, found {found!r}", start + 1)
        end = self._closing(start, opening)
        inner = self.text[start + 1 : end]
        self.pos = end + 1
        stripped = inner.strip()
        if not stripped:
            raise QueryError("empty filter between delimiters", start + 1)
        if is_boolean(stripped):
            sub = _Reader(self.text, self.ctx)
            sub.text = self.text[:end]  # positions stay those of the whole line
            sub.pos = start + 1
            nested = sub.expression(0, depth + 1)
            sub._skip()
            if sub.pos != end:
                raise QueryError("expected AND, OR, XOR or NOT here", sub.pos + 1)
            return nested
        try:
            return parse_filter(stripped, self.ctx)
        except QueryError as e:
            raise QueryError(e.message, start + 2 + (e.column - 1 if e.column else 0)) from None

    def _closing(self, start: int, opening: str) -> int:
        close, nested = _CLOSE[opening], 0
        for i in range(start + 1, len(self.text)):
            ch = self.text[i]
            if ch == close and nested == 0:
                return i
            if opening != '"' and ch == opening:
                nested += 1
            elif ch == close:
                nested -= 1
        raise QueryError(f"{opening!r} is never closed", start + 1)


def _combine(op: str, left: Filter, right: Filter) -> Filter:
    a, b = left.test, right.test
    tests: dict[str, Callable[..., bool]] = {
        "AND": lambda t: a(t) and b(t),
        "OR": lambda t: a(t) or b(t),
        "XOR": lambda t: a(t) != b(t),
    }
    return Filter(
        f"({left.explain}) {op} ({right.explain})",
        tests[op],
        *_sql(op, left, right),
        heading=left.heading or right.heading,
        vector=_vector(op, left, right),
    )


def _vector(op: str, left: Filter, right: Filter) -> Vector:
    """The combination over many tasks; AND and OR test the right side only where the left one
    leaves the answer open, as the per-task test does."""

    def vector(cols: Columns, idx: Ints) -> Bools:
        first = evaluate(left, cols, idx)
        if op == "XOR":
            either: Bools = first != evaluate(right, cols, idx)
            return either
        open_ = first if op == "AND" else ~first
        out = first.copy()
        out[open_] = evaluate(right, cols, idx[open_])
        return out

    return vector


def _sql(op: str, left: Filter, right: Filter) -> tuple[tuple[str, tuple[Any, ...]] | None, bool]:
    """The SQL of a combination: AND keeps a first cut from either side; OR needs both sides;
    XOR needs both exact (NULL read as false, as the test reads a missing date)."""
    a, b = left.sql, right.sql
    exact = left.exact and right.exact and a is not None and b is not None
    if op == "AND":
        parts = [s for s in (a, b) if s is not None]
        if not parts:
            return None, True
        return (" AND ".join(f"({s[0]})" for s in parts), tuple(p for s in parts for p in s[1])), exact
    if a is None or b is None:
        return None, True
    if op == "OR":
        return (f"({a[0]}) OR ({b[0]})", (*a[1], *b[1])), exact
    if not exact:
        return None, True
    return (f"COALESCE(({a[0]}), 0) <> COALESCE(({b[0]}), 0)", (*a[1], *b[1])), True


def parse_boolean(line: str, ctx: Context) -> Filter:
    reader = _Reader(line, ctx)
    found = reader.expression()
    reader._skip()
    if reader.pos != len(line):
        raise QueryError("expected AND, OR, XOR or NOT here", reader.pos + 1)
    return found
