"""Path globs a caller writes (`list_notes glob`, JSONLogic `glob`), matched within the budget.

The syntax is wcmatch's (`**`, `{a,b}`, `[...]`), translated by wcmatch into regular
expressions once per pattern; matching runs on the `regex` engine with the running budget's
time left (`service.budget.regex_call`). wcmatch's own matcher runs on `re`, which cannot be
interrupted: `**/a/**/a/**/...` against a deep path held a core for minutes there, and answers
in milliseconds here. A pattern that expands to too many alternatives (`{a,b}` repeated) or is
too long raises `GlobError` for the caller to report as its own input error.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from wcmatch import glob as wcglob

from service import budget

MAX_GLOB = 1000  # characters of one pattern


class GlobError(ValueError):
    """The pattern cannot be used (too long, too many brace alternatives, invalid)."""


def matcher(pattern: str, flags: int) -> Callable[[str], bool]:
    """A predicate over vault paths: True when `path` matches `pattern` (wcmatch `flags`)."""
    include, exclude = _compiled(pattern, flags)

    def match(path: str) -> bool:
        return any(budget.regex_call(p, "match", path) for p in include) and not any(
            budget.regex_call(p, "match", path) for p in exclude
        )

    return match


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str, flags: int) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    import regex

    if len(pattern) > MAX_GLOB:
        raise GlobError(f"the pattern is longer than {MAX_GLOB} characters")
    try:
        include, exclude = wcglob.translate(pattern, flags=flags)
        return (
            tuple(regex.compile(p, regex.V0) for p in include),
            tuple(regex.compile(p, regex.V0) for p in exclude),
        )
    except Exception as exc:  # noqa: BLE001 - wcmatch's PatternLimitException (braces), regex errors
        raise GlobError(str(exc) or type(exc).__name__) from None
