"""The common simple frontmatter read without the YAML library: what `frontmatter` would build
from it, or None when the block is anything else (which the full loader then reads).

Why: most notes' frontmatter is a handful of `key: value` lines, block lists of tags and flow
lists (`tags: [a, b/c]`). libyaml scans them in C, but PyYAML's constructor then builds every
value through several Python calls: ~70 µs a note, a sixth of a bulk load's parse worker.

Taken only for a narrow form, and refused at the first doubt (None):
- each line is `key: value`, `key:` followed by a block list (`  - item`, one indent) or by one
  level of `  sub: value` lines, or `key:` alone (null); keys are plain words starting with an
  ASCII letter that YAML reads as strings (not `true`, `null`, …);
- a value is a plain scalar starting with a letter (`true`/`false`/`null` spellings read as YAML
  1.2 booleans and null, as `frontmatter._Loader` does), a decimal int, a float `1.5`, a date
  `2024-03-26` (a `datetime.date`, as the loader builds it; an impossible date is refused), a
  quoted string with no escape or inner quote, or a flow list `[a, b]` of such scalars;
- the block holds no comment, tab, carriage return, anchor, alias, tag, flow mapping, or
  character YAML does not read as printable or treats as a line break (NEL, LS, PS, BOM).

No alias can appear, so the alias budget has nothing to measure; the value, text and depth
limits are applied by the caller to what this returns, as to the loader's result
(`frontmatter._Plain`). `tests/unit/markdown/test_yaml_fast.py` checks it against the full loader
on hostile inputs.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

# Refused anywhere in the block: comments, anchors, aliases, tags, flow mappings (and template
# placeholders), tabs, CR, and every character outside YAML's printable set or read as a break.
_REFUSED = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]|[#&*!{}]")
_KEY = re.compile(r"([A-Za-z][\w-]*(?: [\w-]+)*):(?: +(.*))?")
_SUB = re.compile(r"( +)([A-Za-z][\w-]*(?: [\w-]+)*): +(.*)")
_ITEM = re.compile(r"( *)- +(.*)")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"-?[0-9]+\.[0-9]+")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_WORDS: dict[str, Any] = {
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
    **dict.fromkeys(("null", "Null", "NULL"), None),
}
_NOT_SIMPLE = object()
_MAX_INT_DIGITS = 4_000  # below Python's int-from-text limit (sys.get_int_max_str_digits(), 4,300)


def read(raw: str) -> dict[str, Any] | None:
    """The mapping the YAML loader constructs from `raw`, or None when `raw` is not in the simple
    form (see the module docstring)."""
    if _REFUSED.search(raw):
        return None
    lines = raw.split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines:
        return None  # an empty block: the loader reads None
    out: dict[str, Any] = {}
    i, n = 0, len(lines)
    while i < n:
        m = _KEY.fullmatch(lines[i])
        if m is None:
            return None
        key, value = m.group(1), m.group(2)
        if key in _WORDS:
            return None
        i += 1
        if value is not None and (value := value.rstrip(" ")):
            out[key] = _value(value)
        elif i < n and lines[i][:1] in (" ", "-"):
            i, out[key] = _block(lines, i)
        else:
            out[key] = None
        if out[key] is _NOT_SIMPLE:
            return None
    return out


def _block(lines: list[str], i: int) -> tuple[int, Any]:
    """The block list or one-level mapping starting at line `i`, and the line after it."""
    first = _ITEM.fullmatch(lines[i])
    if first is not None:
        indent = first.group(1)
        items: list[Any] = []
        while i < len(lines) and (m := _ITEM.fullmatch(lines[i])) is not None and m.group(1) == indent:
            item = m.group(2).rstrip(" ")
            value = _value(item) if item else _NOT_SIMPLE
            if value is _NOT_SIMPLE:
                return i, _NOT_SIMPLE
            items.append(value)
            i += 1
        return i, items
    sub = _SUB.fullmatch(lines[i])
    if sub is None:
        return i, _NOT_SIMPLE
    indent = sub.group(1)
    mapping: dict[str, Any] = {}
    while i < len(lines) and (m := _SUB.fullmatch(lines[i])) is not None and m.group(1) == indent:
        key, text = m.group(2), m.group(3).rstrip(" ")
        value = _value(text) if text and key not in _WORDS else _NOT_SIMPLE
        if value is _NOT_SIMPLE:
            return i, _NOT_SIMPLE
        mapping[key] = value
        i += 1
    return i, mapping


def _value(text: str) -> Any:
    """A block value (stripped, not empty): a flow list or a scalar."""
    if text[0] == "[":
        if text[-1] != "]":
            return _NOT_SIMPLE
        inner = text[1:-1]
        if not inner.strip(" "):
            return []
        items = [_scalar(part.strip(" "), flow=True) for part in inner.split(",")]
        return _NOT_SIMPLE if _NOT_SIMPLE in items else items
    return _scalar(text, flow=False)


def _scalar(text: str, *, flow: bool) -> Any:
    if not text:
        return _NOT_SIMPLE
    first = text[0]
    if first == '"' or first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != first or first in inner or "\\" in inner:
            return _NOT_SIMPLE
        return inner
    if first.isalpha():
        if text in _WORDS:
            return _WORDS[text]
        if flow:  # a flow item ends at these; inside one it is not the simple form
            if ":" in text or "[" in text or "]" in text:
                return _NOT_SIMPLE
        elif ": " in text or text[-1] == ":":
            return _NOT_SIMPLE
        return text
    if _INT.fullmatch(text):
        # Past Python's 4,300 digits int() raises: the loader reads it (as its text)
        return int(text) if len(text) <= _MAX_INT_DIGITS else _NOT_SIMPLE
    if _FLOAT.fullmatch(text):
        return float(text)
    if _DATE.fullmatch(text):
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            return _NOT_SIMPLE  # the loader's own error for an impossible date
    return _NOT_SIMPLE
