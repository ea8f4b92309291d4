"""Dataview's facts of one note's text: inline fields and list items (tasks included).

`extract` runs in the indexer (inside `service.indexer.rows.prepare`) and returns the facts as
compact JSON for the `dataview_facts` table: every inline field as `[key, raw value, line]` and
every list item as `[line, parent line or -1, task status or None, text, block id or None]`, with
0-based file lines. Fields come in three forms: a line `Key:: value` (also after a list or quote
marker), `[key:: value]` and `(key:: value)` anywhere in a line; fenced code is skipped. Values
stay raw here; `values.parse_inline_value` types them when a query loads the page. Touches
nothing outside itself.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(?:\[(.)\]\s*)?(.*)$")
_LINE_FIELD = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?)?([^\[\]()\n:]+?)::(.*)$")
_BLOCK_ID = re.compile(r"\s\^([A-Za-z0-9-]+)\s*$")
_EMOJI = {"🗓️": "due", "🗓": "due", "📅": "due", "✅": "completion", "➕": "created", "🛫": "start", "⏳": "scheduled"}
_SHORTHAND = re.compile(r"(🗓️|🗓|📅|✅|➕|🛫|⏳)\s*(\d{4}-\d{2}-\d{2})")
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def bracket_fields(line: str) -> list[tuple[str, str]]:
    """`[key:: value]` and `(key:: value)` fields of one line, in order (brackets may nest)."""
    out: list[tuple[str, str]] = []
    if "::" not in line:
        return out
    i = 0
    while i < len(line):
        opener = line[i]
        if line.startswith("[[", i):  # a wikilink is never a field: skip it whole
            end = line.find("]]", i + 2)
            i = end + 2 if end >= 0 else i + 2
            continue
        if opener in "[(":
            closer = "]" if opener == "[" else ")"
            end = _matching(line, i, opener, closer)
            if end > 0:
                inner = line[i + 1 : end]
                key, sep, value = inner.partition("::")
                if sep and key.strip() and not any(c in key for c in "[]()") and not key.startswith(" "):
                    out.append((key.strip(), value.strip()))
                    i = end + 1
                    continue
        i += 1
    return out


def _matching(line: str, start: int, opener: str, closer: str) -> int:
    depth = 0
    for j in range(start, len(line)):
        ch = line[j]
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
            if depth == 0:
                return j if ch == closer else -1
    return -1


def line_fields(line: str) -> list[tuple[str, str]]:
    """Every field on one line: the bracketed ones, or the whole line as `Key:: value`."""
    found = bracket_fields(line)
    if found:
        return found
    m = _LINE_FIELD.match(line)
    if m is not None and m.group(1).strip():
        return [(m.group(1).strip(), m.group(2).strip())]
    return []


def task_fields(text: str) -> list[tuple[str, str]]:
    """The fields of a list item's text: bracketed ones plus the Tasks emoji shorthands."""
    fields = bracket_fields(text)
    fields += [(_EMOJI[m.group(1)], m.group(2)) for m in _SHORTHAND.finditer(text)]
    return fields


def extract(text: str, body_start: int) -> str:
    """The note's inline fields and list items as JSON (see the module docstring)."""
    first = text.count("\n", 0, body_start)
    lines = text.split("\n")
    fields: list[list[Any]] = []
    items: list[list[Any]] = []
    stack: list[tuple[int, int]] = []  # (indent, line) of the open list items
    fence: str | None = None
    for n in range(first, len(lines)):
        line = lines[n]
        m = _FENCE.match(line)
        if fence is not None:
            if m is not None and m.group(1) == fence:
                fence = None
            continue
        if m is not None:
            fence = m.group(1)
            continue
        item = _LIST.match(line)
        if item is not None:
            indent = len(item.group(1).expandtabs(4))
            while stack and stack[-1][0] >= indent:
                stack.pop()
            body = item.group(3)
            block = _BLOCK_ID.search(" " + body)
            items.append([n, stack[-1][1] if stack else -1, item.group(2), body, block.group(1) if block else None])
            stack.append((indent, n))
        elif line.strip() and not line.startswith((" ", "\t")):
            stack.clear()
        if "::" in line:
            fields.extend([key, value, n] for key, value in line_fields(line))
    if not fields and not items:
        return ""
    return _encode({"f": fields, "l": items})


def decode(facts: str | None) -> tuple[list[list[Any]], list[list[Any]]]:
    if not facts:
        return [], []
    data = json.loads(facts)
    return data.get("f", []), data.get("l", [])
