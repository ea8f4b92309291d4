"""What `validate_dql` checks of a parsed query beyond its grammar, without running it: the
errors `search_dql` raises before it reads a row.

Every expression compiles (`evaluate.compile_expr`: each function called by name exists and is
given a number of arguments it takes; lambdas' bodies included), no function is called with
literals of types it has no variant for (`length(5)`: every row would fail), no literal is indexed
in a way Dataview refuses (`"abc".length`), and a LIMIT written
as a literal is a non-negative number. The error is `QuerySyntaxError`, as when the query runs, with the
place of the first call of the function named when it can be found in the text. Touches nothing
outside itself.
"""

from __future__ import annotations

import re
from typing import Any

from service.dataview.evaluate import Budget, Context, compile_expr, index
from service.dataview.query import Column, Query
from service.dataview.signatures import wrong
from service.dataview.syntax import Node
from service.dataview.values import Link
from service.errors import QuerySyntaxError


def check(query: Query, source: str) -> None:
    """Raise `QuerySyntaxError` for the first expression of `query` that cannot run (with
    `details.offset`, `line` and `column` of the function's first call in `source`)."""
    ctx = Context(Budget(1, 1.0), lambda link: None, _as_written)
    try:
        for node in _expressions(query):
            compile_expr(node, ctx)
            _literal_calls(node, ctx)
    except QuerySyntaxError as e:
        name = e.details.get("function")
        if isinstance(name, str):
            e.details.update(_place(source, name))
        raise
    except RecursionError:
        raise QuerySyntaxError("the query's expressions nest too deeply to evaluate") from None
    for name, arg in query.commands:
        written = _literal(arg) if name == "LIMIT" else 0
        if written is _NOT_LITERAL:
            continue
        if not isinstance(written, (int, float)) or isinstance(written, bool) or written < 0:
            raise QuerySyntaxError("LIMIT takes a non-negative number", details={"limit": written})


def _literal_calls(node: Any, ctx: Context) -> None:
    """Raise for the first call of a function whose arguments are all literals of types it has no
    variant for (`length(5)`, `lower(3)`: `signatures.wrong`), or index of a literal by a literal
    that context.ts refuses (`"abc".length`, `"abc"[true]`: `evaluate.index`), which would fail
    every row."""
    if isinstance(node, list):
        for part in node:
            _literal_calls(part, ctx)
        return
    if not isinstance(node, tuple) or not node:
        return
    if node[0] in ("field", "index") and len(node) == 3:
        obj, key = _literal(node[1]), node[2] if node[0] == "field" else _literal(node[2])
        if obj is not _NOT_LITERAL and key is not _NOT_LITERAL:
            index(ctx, obj, key)  # a scalar by a scalar: raises `ops.NoImplementation` or answers
    if node[0] == "call" and len(node) == 3 and isinstance(node[1], tuple) and node[1][0] == "var":
        values = [_literal(arg) for arg in node[2]]
        message = None if _NOT_LITERAL in values else wrong(node[1][1].lower(), values)
        if message is not None:
            raise QuerySyntaxError(
                message,
                details={"function": node[1][1], "reason": "no_implementation"},
                hint="See Dataview's function list for the types each function takes.",
            )
    for part in node[1:]:
        if isinstance(part, (tuple, list)):
            _literal_calls(part, ctx)


def _as_written(link: Link) -> Link:
    return link


def _expressions(query: Query) -> list[Node]:
    found: list[Node] = [c.expr for c in query.columns]
    for name, arg in query.commands:
        if name == "SORT":
            found += [expr for expr, _ in arg]
        else:
            found.append(arg.expr if isinstance(arg, Column) else arg)
    return found


_NOT_LITERAL = object()


def _literal(node: Node) -> Any:
    """The value of a literal (`5`, `-1`, `"x"`, `null`), else `_NOT_LITERAL`."""
    if node[0] == "lit" and not isinstance(node[1], Link):
        value = node[1]
        return value if value is None or isinstance(value, (int, float, str, bool)) else _NOT_LITERAL
    if node[0] == "neg" and node[1][0] == "lit" and isinstance(node[1][1], (int, float)):
        return -node[1][1]
    return _NOT_LITERAL


def _place(source: str, name: str) -> dict[str, int]:
    """Offset (0-based), line and column (1-based) of the first call `name(` outside a string."""
    strings = [m.span() for m in re.finditer(r'"(?:[^"\\]|\\.)*"', source)]
    for m in re.finditer(rf"(?<![\w\-.]){re.escape(name)}\s*\(", source):
        if not any(start <= m.start() < end for start, end in strings):
            at = m.start()
            return {
                "offset": at,
                "line": source.count("\n", 0, at) + 1,
                "column": at - (source.rfind("\n", 0, at) + 1) + 1,
            }
    return {}
