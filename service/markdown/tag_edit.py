"""Edit inline `#tags` in a note body, and the tag names themselves.

`edit_inline_tags(text, change)` calls `change(tag)` for every inline tag occurrence in the
body and replaces it with the returned name, removes it for '' and keeps it for None. Tags in
code (fenced, indented, inline), link text, link targets, URLs, HTML tags, HTML comments and
HTML blocks are not tags (the same rules as `service.markdown.parse`), so they are never
touched; the frontmatter is left to `service.markdown.yaml_edit`. A removed tag takes one
neighbouring space with it so no double space is left behind.

`renamed(tag, old, new)` is the nested-tag rename rule: `proj` -> `work` turns `proj` into
`work` and `proj/alpha` into `work/alpha`, case-insensitively, but leaves `project` alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from service.errors import ValidationFailed
from service.markdown import frontmatter as fm
from service.markdown import line_ends
from service.markdown.fences import outside_fences
from service.markdown.parse import HTML_BLOCK, HTML_TAG, mask_comments

_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_WIKILINK = re.compile(r"!?\[\[[^\[\]\n]+?\]\]")
_MDLINK = re.compile(r"!?\[[^\]\n]*\]\([^)\n]*\)")
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+")
_TAG = re.compile(r"(?:(?<=\s)|^)#([\w/-]+)")
_VALID = re.compile(r"^[\w/-]+$")


def check_tag(tag: str, field: str = "tags") -> str:
    """A tag name without '#', validated as Obsidian accepts it; `field` names the argument in the error."""
    name = tag.strip().lstrip("#")
    if not name or not _VALID.match(name) or name.replace("/", "").isdigit() or "//" in name:
        raise ValidationFailed(
            f"{tag!r} is not a valid tag",
            details={"field": field, "tag": tag},
            hint="Tags use letters, digits, '_', '-' and '/' for nesting, and are not only digits.",
        )
    return name.strip("/")


def renamed(tag: str, old: str, new: str) -> str | None:
    low, old_low = tag.lower(), old.lower()
    if low == old_low:
        return new
    if low.startswith(old_low + "/"):
        return new + tag[len(old) :]
    return None


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def _masked(line: str) -> str:
    for pattern in (_INLINE_CODE, _WIKILINK, _MDLINK, _URL, HTML_TAG):
        line = pattern.sub(_blank, line)
    return line


def _edit_line(line: str, change: Callable[[str], str | None], masked: str | None = None) -> str:
    masked = _masked(line if masked is None else masked)
    spans: list[tuple[int, int, str]] = []
    for m in _TAG.finditer(masked):
        tag = m.group(1)
        if tag.replace("/", "").isdigit():
            continue
        new = change(tag)
        if new is None or new == tag:
            continue
        start, end = m.start(), m.end()
        if new == "":
            if start > 0 and line[start - 1] in " \t":
                start -= 1
            elif end < len(line) and line[end] in " \t":
                end += 1
            spans.append((start, end, ""))
        else:
            spans.append((start, end, "#" + new))
    for start, end, text in reversed(spans):
        line = line[:start] + text + line[end:]
    return line


def edit_inline_tags(text: str, change: Callable[[str], str | None]) -> str:
    if line_ends.lf(text) is not text:  # lines ending in a CR alone: edited by those lines, CR kept
        return line_ends.keeping(lambda view: edit_inline_tags(view, change))(text)
    lines = text.split("\n")
    comment = html = False
    last = -1
    ended: set[int] = set()  # where an HTML comment block ends with its list item or quote (as parse_note reads it)
    for no, raw in outside_fences(lines, fm.fences(text).body_line, ended):
        if no != last + 1 or not raw.strip():
            html = False  # a blank line or a code block ends an HTML block
        if ended:  # on this line or on a code line since the last
            comment = False
            ended.clear()
        last = no
        if not html and raw.lstrip(" ")[:1] == "<":
            html = HTML_BLOCK.match(raw) is not None
        prose = raw
        if comment or "<!--" in raw:
            prose, comment = mask_comments(_INLINE_CODE.sub(_blank, raw), comment)
        if "#" in prose and not html:
            lines[no] = _edit_line(raw, change, prose)
    return "\n".join(lines)
