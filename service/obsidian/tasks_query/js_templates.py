"""Where a JavaScript template string of a `… by function` expression ends, and where each of its
`${…}` ends, as JavaScript reads them: a `}` or a backtick inside a quoted string, inside a nested
template string or inside balanced braces of the substitution does not end it (`${'}'}`,
`${`a${b}`}`). Pure scanning over the text; no values. Template strings nested deeper than the
caller's `max_depth` raise `TooDeep` (the scan recurses once per level)."""

from __future__ import annotations

_QUOTES = ("'", '"')


class TooDeep(Exception):
    """Template strings nested deeper than the scan was allowed."""


def template_end(text: str, start: int, max_depth: int) -> int | None:
    """The index just past the template string whose opening backtick is at `start`, or None when
    it is not closed."""
    if max_depth <= 0:
        raise TooDeep
    i = start + 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
        elif c == "`":
            return i + 1
        elif text.startswith("${", i):
            end = substitution_end(text, i + 2, max_depth)
            if end is None:
                return None
            i = end + 1
        else:
            i += 1
    return None


def substitution_end(text: str, start: int, max_depth: int) -> int | None:
    """The index of the `}` closing a `${` whose expression starts at `start`, or None."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c in _QUOTES:
            end = _quoted_end(text, i)
            if end is None:
                return None
            i = end
        elif c == "`":
            end = template_end(text, i, max_depth - 1)
            if end is None:
                return None
            i = end
        elif c == "{":
            depth, i = depth + 1, i + 1
        elif c == "}":
            if depth == 0:
                return i
            depth, i = depth - 1, i + 1
        else:
            i += 1
    return None


def _quoted_end(text: str, start: int) -> int | None:
    """The index just past the quoted string opening at `start` (its quote escaped with `\\`)."""
    quote, i = text[start], start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == quote:
            return i + 1
        else:
            i += 1
    return None
