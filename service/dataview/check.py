"""What `validate_dql` checks of a parsed query beyond its grammar, without running it: the
errors `search_dql` raises before it reads a row.

Every expression compiles (`evaluate.compile_expr`: each function called by name exists and is
given a number of arguments it takes; lambdas' bodies included), and a LIMIT written as a literal
is a non-negative number. The error is `QuerySyntaxError`, as when the query runs, with the
place of the first call of the function named when it can be found in the text. Touches nothing
outside itself.
"""

from __future__ import annotations

import re
from typing import Any

from service.dataview.evaluate import Budget, Context, compile_expr
from service.dataview.query import Column, Query
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
