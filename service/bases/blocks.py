"""The ```` ```base ```` code blocks of a note: where each starts and the YAML it holds.

A block opens with a fence of three or more backticks or tildes whose info string is `base`,
and closes with a fence of the same character at least as long (CommonMark). Blocks are
numbered from 0 in the order they appear. Touches nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)")


@dataclass(frozen=True, slots=True)
class Block:
    line: int  # 0-based line of the first YAML line (after the opening fence)
    text: str


def base_blocks(text: str) -> list[Block]:
    lines = text.split("\n")
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = _OPEN.match(lines[i])
        if m is None:
            i += 1
            continue
        fence, info = m.group(1), m.group(2).lower()
        close = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        if info == "base":
            out.append(Block(i + 1, "\n".join(lines[i + 1 : j])))
        i = j + 1
    return out
