"""Dataview's facts of one note's text: inline fields and list items (tasks included).

`extract` runs in the indexer (inside `service.indexer.rows.prepare`) and returns the facts as
compact JSON for the `dataview_facts` table: every inline field as `[key, raw value, line]` and
every list item as `[line, parent line or -1, task status or None, text, block id or None,
section heading or None, tags]`, with 0-based file lines. The list items are the ones the note
parser found (`service.markdown.parse.ListItem`, the same ones the index's task rows come from);
this module only finds the fields. Fields come in three forms: a line `Key:: value` (also after
a list or quote marker), `[key:: value]` and `(key:: value)` anywhere in a line; fenced code is
skipped, and so is a task's line: as in Dataview, a task's fields are its own (`items`), never its
page's (a plain list item's fields are the page's too). Values stay raw here;
`values.parse_inline_value` types them when a query loads the page. Touches nothing outside itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from service.dataview.keys import full_line_key
from service.markdown.parse import ListItem

_FENCE = re.compile(r"^\s*(```|~~~)")
_LINE_FIELD = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?)?([^\[\]()\n:]+?)::(.*)$")
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
    key = None if m is None else full_line_key(m.group(1).strip())
    return [(key, m.group(2).strip())] if m is not None and key else []


def extract(text: str, body_start: int, items: Sequence[ListItem] = ()) -> str:
    """The note's inline fields and list `items` as JSON (see the module docstring)."""
    fields: list[list[Any]] = []
    # Every field holds "::": a note without one (most) has no line to walk.
    lines = text.split("\n") if "::" in text else []
    fence: str | None = None
    tasks = {i.line for i in items if i.status is not None} if lines else set()
    for n in range(text.count("\n", 0, body_start) if lines else 0, len(lines)):
        line = lines[n]
        m = _FENCE.match(line)
        if fence is not None:
            if m is not None and m.group(1) == fence:
                fence = None
            continue
        if m is not None:
            fence = m.group(1)
            continue
        if "::" in line and n not in tasks:
            fields.extend([key, value, n] for key, value in line_fields(line))
    if not fields and not items:
        return ""
    listed = [[i.line, i.parent, i.status, i.text, i.block, i.section, list(i.tags)] for i in items]
    return _encode({"f": fields, "l": listed})


def decode(facts: str | None) -> tuple[list[list[Any]], list[list[Any]]]:
    if not facts:
        return [], []
    data = json.loads(facts)
    return data.get("f", []), data.get("l", [])
