"""The DQL query grammar: a header, an optional FROM source, then data commands in any order.

    LIST [WITHOUT ID] [expr]  |  TABLE [WITHOUT ID] expr [AS name], ...  |  TASK  |  CALENDAR expr
    FROM source      -- #tag, "folder" or "path", [[link]], outgoing([[link]]), csv("path"), and/or, -/! negation
    WHERE expr | SORT expr [ASC|DESC], ... | GROUP BY expr [AS name] | FLATTEN expr [AS name] | LIMIT n

`parse_query` returns a `Query` (or raises `DqlError` with the position); a query pasted with its
```` ```dataview ```` fence is read without it (`unfence`, lines kept). `describe` renders it
as JSON for `validate_dql`. Keywords are case-insensitive. `is_dataviewjs` recognises DataviewJS
(JavaScript against Dataview's `dv` API: a ```` ```dataviewjs ```` block, inline `$=` code, or
text that is no DQL and calls `dv.`), which the server does not run. Touches nothing outside
itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from service.dataview.syntax import DqlError, Node, Parser, check_depth
from service.dataview.values import to_json
from service.markdown.fences import unfence

QUERY_TYPES = ("LIST", "TABLE", "TASK", "CALENDAR")
COMMANDS = ("FROM", "WHERE", "SORT", "GROUP", "FLATTEN", "LIMIT")


@dataclass(frozen=True, slots=True)
class Column:
    expr: Node
    name: str


@dataclass(slots=True)
class Query:
    kind: str  # LIST | TABLE | TASK | CALENDAR
    without_id: bool = False
    columns: list[Column] = field(default_factory=list)  # TABLE columns; LIST / CALENDAR: one
    source: Node | None = (
        None  # ("tag", t) | ("path", p) | ("link", Link) | ("outgoing", Link) | ("csv", p) | and/or/not
    )
    commands: list[tuple[str, Any]] = field(default_factory=list)


class QueryParser(Parser):
    def query(self) -> Query:
        if not self.is_word(*QUERY_TYPES):
            raise self.fail("expected a query type (LIST, TABLE, TASK or CALENDAR)")
        q = Query(kind=self.take().text.upper())
        if q.kind in ("LIST", "TABLE") and self.is_word("WITHOUT"):
            self.take()
            if not self.is_word("ID"):
                raise self.fail("expected ID after WITHOUT")
            self.take()
            q.without_id = True
        if q.kind == "TABLE" and not self._at_command() and self.tok.kind != "end":
            q.columns = self._columns()
        elif q.kind == "LIST" and not self._at_command() and self.tok.kind != "end":
            q.columns = [self._column()]
        elif q.kind == "CALENDAR":
            if self._at_command() or self.tok.kind == "end":
                raise self.fail("CALENDAR needs a date expression")
            q.columns = [self._column()]
        if self.is_word("FROM"):
            self.take()
            q.source = self._source_or()
        while self.tok.kind != "end":
            q.commands.append(self._command())
        return q

    def _at_command(self) -> bool:
        """A command word starts here — not the function `sort(` (Dataview reads `TABLE sort(tags)`
        as a column: a name directly followed by '(' is a call)."""
        nxt = self.peek()
        call = nxt.kind == "op" and nxt.text == "(" and nxt.pos == self.tok.pos + len(self.tok.text)
        return self.is_word(*COMMANDS) and not (call and self.tok.text.lower() == "sort")

    def _text(self, start: int) -> str:
        end = self.tokens[self.i - 1]
        return self.source[start : end.pos + len(end.text)].strip()

    def _column(self, default: str | None = None) -> Column:
        start = self.tok.pos
        expr = self.expression()
        name = default or self._text(start)
        if self.is_word("AS"):
            self.take()
            alias = self.take()
            if alias.kind not in ("str", "ident"):
                raise self.fail("expected a name after AS", alias)
            name = alias.value if alias.kind == "str" else alias.text
        return Column(expr, name)

    def _columns(self) -> list[Column]:
        cols = [self._column()]
        while self.is_op(","):
            self.take()
            cols.append(self._column())
        return cols

    # -- sources ---------------------------------------------------------------------------
    def _source_or(self) -> Node:
        left = self._source_and()
        while self.is_word("OR") or self.is_op("|"):
            self.take()
            left = ("or", left, self._source_and())
        return left

    def _source_and(self) -> Node:
        left = self._source_atom()
        while self.is_word("AND") or self.is_op("&"):
            self.take()
            left = ("and", left, self._source_atom())
        return left

    def _source_atom(self) -> Node:
        tok = self.tok
        if self.is_op("-", "!", "("):
            self._enter()
            try:
                if self.take().text != "(":
                    return ("not", self._source_atom())
                inner = self._source_or()
                self.expect_op(")")
                return inner
            finally:
                self.depth -= 1
        if tok.kind == "tag":
            self.take()
            return ("tag", tok.text[1:])
        if tok.kind == "str":
            self.take()
            return ("path", tok.value)
        if tok.kind == "link":
            self.take()
            return ("link", tok.value)
        if tok.kind == "ident" and tok.text.lower() == "outgoing":
            return self._call_source("outgoing", "link", "outgoing() takes a [[link]]")
        if tok.kind == "ident" and tok.text.lower() == "csv":  # Dataview's csv("path") source (parse.ts)
            return self._call_source("csv", "str", 'csv() takes a "path"')
        raise self.fail('expected a source (#tag, "folder", [[link]], outgoing([[link]]) or csv("path"))')

    def _call_source(self, name: str, kind: str, message: str) -> Node:
        """`name(argument)` in FROM, its one argument a token of `kind`: (name, its value)."""
        self.take()
        self.expect_op("(")
        argument = self.take()
        if argument.kind != kind:
            raise self.fail(message, argument)
        self.expect_op(")")
        return (name, argument.value)

    # -- data commands ---------------------------------------------------------------------
    def _command(self) -> tuple[str, Any]:
        tok = self.tok
        if not self.is_word(*COMMANDS):
            raise self.fail("expected a command (WHERE, SORT, GROUP BY, FLATTEN, LIMIT)")
        word = self.take().text.upper()
        if word == "FROM":
            raise DqlError("FROM must come right after the query type", self.source, tok.pos)
        if word == "WHERE":
            return ("WHERE", self.expression())
        if word == "LIMIT":
            return ("LIMIT", self.expression())
        if word == "SORT":
            keys = [self._sort_key()]
            while self.is_op(","):
                self.take()
                keys.append(self._sort_key())
            return ("SORT", keys)
        if word == "GROUP":
            if not self.is_word("BY"):
                raise self.fail("expected BY after GROUP")
            self.take()
            return ("GROUP", self._column("key"))
        return ("FLATTEN", self._column())

    def _sort_key(self) -> tuple[Node, bool]:
        expr = self.expression()
        descending = False
        if self.is_word("ASC", "ASCENDING", "DESC", "DESCENDING"):
            descending = self.take().text.upper().startswith("DESC")
        return expr, descending


def parse_query(source: str) -> Query:
    source = unfence(source, "dataview")
    parser = QueryParser(source)
    query = parser.query()
    exprs: list[Any] = [query.source, *(c.expr for c in query.columns)]
    for name, arg in query.commands:
        exprs += [e for e, _ in arg] if name == "SORT" else [arg.expr if isinstance(arg, Column) else arg]
    check_depth(exprs, source)
    return query


_JS_FENCE = re.compile(r"\A\s*(?:`{3,}|~{3,})[ \t]*dataviewjs\b", re.IGNORECASE)
_JS_INLINE = re.compile(r"\A\s*`?\$=")
_JS_CODE = re.compile(r"\b(?:dv|dataview)\.[A-Za-z_]\w*|^\s*(?:const|let|var|await|function)\s", re.MULTILINE)


def csv_source(node: Node | None) -> str | None:
    """The path of the first `csv("path")` in a FROM source, if any (not supported: `tools`)."""
    if node is None:
        return None
    if node[0] == "csv":
        return str(node[1])
    if node[0] in ("and", "or", "not"):
        return next((p for part in node[1:] if (p := csv_source(part)) is not None), None)
    return None


def is_dataviewjs(source: str) -> bool:
    """Whether `source` is DataviewJS rather than DQL: a ```dataviewjs fence, an inline `$=`
    query, or JavaScript calling the `dv` API (asked only of text that does not parse as DQL and
    does not start with a DQL query type)."""
    first = source.split(None, 1)[0].upper() if source.strip() else ""
    if first in QUERY_TYPES:
        return False
    return bool(_JS_FENCE.match(source) or _JS_INLINE.match(source) or _JS_CODE.search(source))


def describe(q: Query) -> dict[str, Any]:
    """A parsed query as JSON: its type, columns, source and commands (expressions as trees)."""
    return {
        "type": q.kind,
        "without_id": q.without_id,
        "columns": [{"name": c.name, "expr": _tree(c.expr)} for c in q.columns],
        "source": _tree(q.source) if q.source is not None else None,
        "commands": [_command(name, arg) for name, arg in q.commands],
    }


def _command(name: str, arg: Any) -> dict[str, Any]:
    if name == "SORT":
        return {"command": name, "keys": [{"expr": _tree(e), "descending": d} for e, d in arg]}
    if isinstance(arg, Column):
        return {"command": "GROUP BY" if name == "GROUP" else name, "expr": _tree(arg.expr), "as": arg.name}
    return {"command": name, "expr": _tree(arg)}


def _tree(node: Any) -> Any:
    if isinstance(node, tuple):
        return [_tree(n) for n in node]
    if isinstance(node, list):
        return [_tree(n) for n in node]
    return to_json(node)
