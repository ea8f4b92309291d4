"""The Bases expression syntax: tokens and a precedence-climbing parser into a small tree.

Grammar, lowest precedence first: `||`, `&&`, `==` `!=`, `<` `<=` `>` `>=`, `+` `-`, `*` `/`
`%`, unary `!` `-`, then postfix `.name`, `.name(args)`, `[index]`, `f(args)`. Primaries:
numbers, 'single' or "double" quoted strings (backslash escapes), `true` / `false` / `null`,
`[lists]`, `{"objects": ...}`, `/regular expressions/flags`, identifiers and parentheses.
Every node keeps its character offset; a syntax error carries the offset and the offending
token (`ExprSyntaxError`). Nesting is bounded (`max_depth`, from `[limits]`): brackets, calls
and unary operators inside one another at most `max_depth` deep, and the tree (long operator
chains nest too) at most `TREE_FACTOR * max_depth`, so neither parsing nor evaluation can run out
of Python's stack. Touches nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from service.budget import DEFAULT_LIMITS


class ExprSyntaxError(Exception):
    def __init__(self, message: str, offset: int, token: str) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.token = token


@dataclass(frozen=True, slots=True)
class Node:
    kind: str  # lit | list | obj | ident | member | index | call | unary | binary | regex
    pos: int
    value: Any = None  # literal value, name, operator, (source, flags)
    args: tuple[Node, ...] = ()


_TOKEN = re.compile(
    r"""(?P<ws>\s+)
    |(?P<num>(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?)
    |(?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    |(?P<name>[A-Za-z_$\u00C0-\uFFFF][\w$\u00C0-\uFFFF]*)
    |(?P<op>==|!=|<=|>=|&&|\|\||[-+*/%<>!()\[\]{},.:?])""",
    re.VERBOSE,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
_BINARY = [("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%")]


def _unescape(body: str) -> str:
    return re.sub(
        r"\\(u[0-9a-fA-F]{4}|.)",
        lambda m: _ESCAPES.get(m.group(1), m.group(1)) if len(m.group(1)) == 1 else chr(int(m.group(1)[1:], 16)),
        body,
    )


TREE_FACTOR = 4  # an operator chain `a + b + ...` nests one level per operator, cheaply


def tree_depth(node: Node) -> int:
    """Levels of `node`'s tree, measured without recursion."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        n, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((a, depth + 1) for a in n.args)
    return deepest


class _Parser:
    def __init__(self, text: str, max_depth: int) -> None:
        self.text = text
        self.max_depth = max_depth
        self.nesting = 0
        self.pos = 0
        self.tok: tuple[str, str, int] = ("", "", 0)
        self.advance(regex_ok=True)

    def fail(self, message: str, tok: tuple[str, str, int] | None = None) -> ExprSyntaxError:
        kind, value, pos = tok or self.tok
        return ExprSyntaxError(message, pos, value if kind != "eof" else "end of expression")

    def advance(self, regex_ok: bool = False) -> None:
        while True:
            if self.pos >= len(self.text):
                self.tok = ("eof", "", len(self.text))
                return
            if regex_ok and self.text[self.pos] == "/":
                self.tok = self._regex()
                return
            m = _TOKEN.match(self.text, self.pos)
            if m is None:
                raise ExprSyntaxError(f"unexpected character {self.text[self.pos]!r}", self.pos, self.text[self.pos])
            self.pos = m.end()
            kind = m.lastgroup or ""
            if kind != "ws":
                self.tok = (kind, m.group(0), m.start())
                return

    def _regex(self) -> tuple[str, str, int]:
        start, i, in_class = self.pos, self.pos + 1, False
        while i < len(self.text):
            c = self.text[i]
            if c == "\\":
                i += 2
                continue
            if c == "[":
                in_class = True
            elif c == "]":
                in_class = False
            elif c == "/" and not in_class:
                break
            i += 1
        else:
            raise ExprSyntaxError("unterminated regular expression", start, self.text[start:])
        j = i + 1
        while j < len(self.text) and self.text[j] in "dgimsuvy":
            j += 1
        self.pos = j
        return ("regex", self.text[start:j], start)

    def expect(self, op: str) -> None:
        if self.tok[0] != "op" or self.tok[1] != op:
            raise self.fail(f"expected {op!r}")
        self.advance(regex_ok=op in "([{,:")

    def is_op(self, *ops: str) -> bool:
        return self.tok[0] == "op" and self.tok[1] in ops

    def nest(self) -> None:
        self.nesting += 1
        if self.nesting > self.max_depth:
            raise self.fail(f"expression nested more than {self.max_depth} levels deep")

    def expression(self, level: int = 0) -> Node:
        if level == 0:
            self.nest()
            try:
                return self._binary(0)
            finally:
                self.nesting -= 1
        return self._binary(level)

    def _binary(self, level: int) -> Node:
        if level == len(_BINARY):
            return self.unary()
        left = self._binary(level + 1)
        while self.is_op(*_BINARY[level]):
            op, pos = self.tok[1], self.tok[2]
            self.advance(regex_ok=True)
            right = self._binary(level + 1)
            left = Node("binary", pos, op, (left, right))
        return left

    def unary(self) -> Node:
        if self.is_op("!", "-", "+"):
            op, pos = self.tok[1], self.tok[2]
            self.advance(regex_ok=True)
            self.nest()
            try:
                return Node("unary", pos, op, (self.unary(),))
            finally:
                self.nesting -= 1
        return self.postfix(self.primary())

    def arguments(self, close: str) -> tuple[Node, ...]:
        args: list[Node] = []
        while not self.is_op(close):
            args.append(self.expression())
            if not self.is_op(close):
                self.expect(",")
        self.advance()
        return tuple(args)

    def postfix(self, node: Node) -> Node:
        while True:
            if self.is_op("."):
                self.advance()
                kind, name, pos = self.tok
                if kind != "name":
                    raise self.fail("expected a property or method name after '.'")
                self.advance()
                node = Node("member", pos, name, (node,))
            elif self.is_op("["):
                pos = self.tok[2]
                self.advance(regex_ok=True)
                index = self.expression()
                self.expect("]")
                node = Node("index", pos, None, (node, index))
            elif self.is_op("("):
                if node.kind not in ("ident", "member"):
                    raise self.fail("only functions and methods can be called")
                pos = self.tok[2]
                self.advance(regex_ok=True)
                node = Node("call", pos, None, (node, *self.arguments(")")))
            else:
                return node

    def primary(self) -> Node:
        kind, value, pos = self.tok
        if kind == "num":
            self.advance()
            number = float(value)
            return Node(
                "lit",
                pos,
                int(number) if number.is_integer() and "." not in value and "e" not in value.lower() else number,
            )
        if kind == "str":
            self.advance()
            return Node("lit", pos, _unescape(value[1:-1]))
        if kind == "regex":
            self.advance()
            body, _, flags = value[1:].rpartition("/")
            return Node("regex", pos, (body, flags))
        if kind == "name":
            self.advance()
            if value in ("true", "false"):
                return Node("lit", pos, value == "true")
            if value == "null":
                return Node("lit", pos, None)
            return Node("ident", pos, value)
        if self.is_op("("):
            self.advance(regex_ok=True)
            inner = self.expression()
            self.expect(")")
            return inner
        if self.is_op("["):
            self.advance(regex_ok=True)
            return Node("list", pos, None, self.arguments("]"))
        if self.is_op("{"):
            self.advance()
            pairs: list[Node] = []
            while not self.is_op("}"):
                k_kind, k_value, k_pos = self.tok
                if k_kind not in ("str", "name"):
                    raise self.fail("expected an object key")
                key = _unescape(k_value[1:-1]) if k_kind == "str" else k_value
                self.advance()
                self.expect(":")
                pairs.append(Node("lit", k_pos, key))
                pairs.append(self.expression())
                if not self.is_op("}"):
                    self.expect(",")
            self.advance()
            return Node("obj", pos, None, tuple(pairs))
        if kind == "eof":
            raise self.fail("unexpected end of expression")
        raise self.fail(f"unexpected {value!r}")


def parse(text: str, max_depth: int = DEFAULT_LIMITS.max_depth) -> Node:
    """The tree of one expression; `ExprSyntaxError` with the offset and token when invalid."""
    if not text.strip():
        raise ExprSyntaxError("empty expression", 0, "")
    p = _Parser(text, max_depth)
    node = p.expression()
    if p.tok[0] != "eof":
        raise p.fail(f"unexpected {p.tok[1]!r} after a complete expression")
    if tree_depth(node) > TREE_FACTOR * max_depth:
        raise ExprSyntaxError(f"expression nested more than {TREE_FACTOR * max_depth} levels deep", 0, text[:40])
    return node
