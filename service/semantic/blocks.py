"""A note body as a list of blocks under their heading path: the chunker's input.

A block is a heading, a fenced code block (``` / ~~~), a math block ($$ … $$), a table
(consecutive `|` lines) or a paragraph (lines up to a blank line). Fences, math and tables are
atomic: the chunker never cuts inside one unless it alone exceeds the model's limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from service.markdown.fences import FENCE, closes

HEADING = re.compile(r"^[ \t]{0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
Kind = Literal["heading", "code", "math", "table", "text"]


@dataclass(frozen=True, slots=True)
class Block:
    kind: Kind
    text: str
    level: int = 0  # headings only


def _is_table(line: str) -> bool:
    return line.lstrip().startswith("|")


def blocks(body: str) -> list[Block]:
    lines = body.splitlines()
    out: list[Block] = []
    para: list[str] = []

    def flush() -> None:
        text = "\n".join(para).strip()
        if text:
            out.append(Block("text", text))
        para.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        if fence is not None:
            flush()
            j = i + 1
            while j < len(lines) and not closes(fence.group(1), FENCE.match(lines[j])):
                j += 1
            out.append(Block("code", "\n".join(lines[i : j + 1]).strip()))
            i = j + 1
            continue
        if line.strip().startswith("$$"):
            flush()
            j = i
            if not (line.strip().endswith("$$") and len(line.strip()) > 2):
                j = i + 1
                while j < len(lines) and "$$" not in lines[j]:
                    j += 1
            out.append(Block("math", "\n".join(lines[i : j + 1]).strip()))
            i = j + 1
            continue
        heading = HEADING.match(line)
        if heading is not None:
            flush()
            out.append(Block("heading", heading.group(2).strip(), len(heading.group(1))))
            i += 1
            continue
        if _is_table(line):
            flush()
            j = i
            while j < len(lines) and _is_table(lines[j]):
                j += 1
            out.append(Block("table", "\n".join(lines[i:j]).strip()))
            i = j
            continue
        if not line.strip():
            flush()
        else:
            para.append(line)
        i += 1
    flush()
    return out


@dataclass
class Section:
    path: list[str]  # heading texts from the top level down ([] before the first heading)
    blocks: list[Block]


def sections(body: str) -> list[Section]:
    """Blocks grouped under their heading path (sections without blocks are left out)."""
    out: list[Section] = []
    stack: list[tuple[int, str]] = []
    current = Section([], [])
    for block in blocks(body):
        if block.kind == "heading":
            if current.blocks:
                out.append(current)
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            stack.append((block.level, block.text))
            current = Section([t for _, t in stack], [])
        else:
            current.blocks.append(block)
    if current.blocks:
        out.append(current)
    return out
