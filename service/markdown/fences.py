"""Fenced code blocks: which lines of a note are prose and which are code.

Links, tags and task syntax inside ``` or ~~~ fences are code, not structure; every scanner that
reads or rewrites them skips fenced lines the same way (a fence closes with the same character,
at least as long, as CommonMark says).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

FENCE = re.compile(r"^[ \t]{0,3}(```+|~~~+)")


def closes(fence: str, match: re.Match[str] | None) -> bool:
    """Whether a fence-looking line closes the open `fence`."""
    return match is not None and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence)


def outside_fences(lines: list[str], start: int = 0) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line from `start` on that is not part of a fenced block."""
    fence: str | None = None
    for no in range(start, len(lines)):
        raw = lines[no]
        opened = FENCE.match(raw)
        if fence is not None:
            if closes(fence, opened):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        yield no, raw
