"""JavaScript's replacement patterns (`String.prototype.replace` with a regular expression), for
the evaluators that run a vault's JavaScript-written expressions: Dataview's `replace` /
`regexreplace` and Bases' `.replace()`. Standard library only.

In the replacement, `$$` is '$', `$&` the match, `` $` `` and `$'` the text before and after it,
`$1`..`$99` a group (two digits when that group exists, else one digit and the next character as
written; an unmatched group ''), `$<name>` a named group ('' when the expression has named groups
but not that one); any other '$' stays as written (`$0`, `$9` of an expression with fewer groups,
`$<x>` of one without named groups)."""

from __future__ import annotations

import re
from typing import Any

_DOLLAR = re.compile(r"\$(\$|&|`|'|\d{1,2}|<[^>]*>)")


def expand(m: Any, repl: str, s: str) -> str:
    """`repl` for the match `m` (of the `re` or `regex` package) in the text `s`."""
    groups = len(m.groups())

    def one(d: re.Match[str]) -> str:
        token = d.group(1)
        if token == "$":
            return "$"
        if token == "&":
            return str(m.group(0))
        if token == "`":
            return s[: m.start()]
        if token == "'":
            return s[m.end() :]
        if token.startswith("<"):
            if not m.re.groupindex:
                return d.group(0)
            return str(m.group(token[1:-1]) or "") if token[1:-1] in m.re.groupindex else ""
        number = int(token)
        if len(token) == 2 and not 1 <= number <= groups:
            number, rest = int(token[0]), token[1]
        else:
            rest = ""
        if not 1 <= number <= groups:
            return d.group(0)
        return str(m.group(number) or "") + rest

    return _DOLLAR.sub(one, repl)
