"""Links written in frontmatter properties (`up: "[[Hub]]"`, `related: ["[[A]]", "[[B|b]]"]`).

Obsidian (1.4+) counts a wikilink in a property's value as a link of the note: it is in the
target's backlinks and the graph, and Dataview's `file.outlinks` / `file.inlinks` hold it. The
parser (`parse_note`) adds them to the note's links, each marked with the property it is written
in (`Link.property`, the top-level key; a list item or a nested value carries its top-level key).

The links are read from the values as YAML reads them (quotes, escapes, folded text: what
Obsidian reads), never from the raw lines; every wikilink of a string value counts, as in the
body; a `!` before one does not make it an embed (a property shows no file). Markdown links
(`[a](b.md)`) in a property are text, as in Obsidian. A link's line is the
frontmatter line where it is written: the first place past its key's previous link (or from its
key's line on) where the raw text holds the same `[[...]]`, within the key's lines and `WINDOW`
lines of that previous link; else the key's line (a value not written as read: escapes, a YAML
alias). The places are indexed once per note (each raw `[[...]]`, by its text), so a key of many
links on one line costs a lookup a link, not a scan of the line.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from typing import Any

WINDOW = 64  # lines a link is looked for in, from the previous link of its key
_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
# A top-level key's line: at the margin, not a comment, a list item or a document marker.
_KEY = re.compile(r"""^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#'"\-?:][^:]*?|-[^\s:][^:]*?))[ \t]*:(?:[ \t]|$)""")


def _strings(value: Any) -> Iterator[str]:
    """The strings of a property value: itself, its list items, a nested value's strings."""
    if isinstance(value, str):
        if "[[" in value:
            yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _key_lines(raw_lines: list[str]) -> dict[str, int]:
    """Each top-level key's line (0-based in `raw_lines`); the first, when a key repeats."""
    out: dict[str, int] = {}
    for no, line in enumerate(raw_lines):
        if not line[:1] or line[:1] in " \t#":
            continue
        m = _KEY.match(line.rstrip("\r"))
        if m is None:
            continue
        key = m.group(3) if m.group(3) is not None else m.group(2) if m.group(2) is not None else m.group(1)
        if m.group(2) is not None:
            key = key.replace("''", "'")
        out.setdefault(key.strip() if m.group(3) is not None else key, no)
    return out


def _written(raw_lines: list[str]) -> dict[str, list[tuple[int, int]]]:
    """Where each `[[...]]` is written in the raw lines: its text up to the `]]` (as `written` in
    `property_links`) -> its (line, column) places, in text order."""
    out: dict[str, list[tuple[int, int]]] = {}
    for no, line in enumerate(raw_lines):
        if "[[" in line:
            for m in _WIKILINK.finditer(line):
                out.setdefault("[[" + m.group(1), []).append((no, m.start()))
    return out


def property_links(
    raw: str, props: dict[str, Any], first_line: int, split_link: Callable[[str], tuple[str, str | None, str | None]]
) -> Iterator[tuple[str, str, str | None, str | None, int]]:
    """(key, target, subpath, alias, line) of each wikilink in the values of `props`, in
    key order, then value order; `raw` is the YAML text, whose first line is the file's
    `first_line`; `split_link` splits a link's inner text as the body's links are split."""
    raw_lines = raw.split("\n")
    keys: dict[str, int] | None = None
    starts: list[int] = []
    places: dict[str, list[tuple[int, int]]] = {}
    for key, value in props.items():
        strings = list(_strings(value))
        if not strings:
            continue
        if keys is None:
            keys = _key_lines(raw_lines)
            starts = sorted(keys.values())
            places = _written(raw_lines)
        home = keys.get(str(key), 0)
        nxt = bisect_right(starts, home)
        end = starts[nxt] if nxt < len(starts) else len(raw_lines)  # the key's lines end at the next key
        cursor = (home, 0)  # past the key's previous link: a list's links are written in order
        for text in strings:
            for m in _WIKILINK.finditer(text):
                target, subpath, alias = split_link(m.group(1))
                written = "[[" + m.group(1)
                found = places.get(written, ())
                i = bisect_left(found, cursor)  # its first place at or past the cursor
                line = home  # written otherwise (escapes, folded lines, an alias): its key's line
                if i < len(found) and found[i][0] < min(end, cursor[0] + WINDOW):
                    line = found[i][0]
                    cursor = (line, found[i][1] + len(written))  # the next link is after this one
                yield str(key), target, subpath, alias, first_line + line
