"""Locating parts of a note — a heading section by heading path, a block `^id`, a text anchor —
and inserting or replacing text relative to them.

A heading section runs from its heading line to the line before the next heading of the same or
a higher level (nested sub-sections belong to it). Headings inside fenced code do not count
(the parser skips fences). All functions are pure: they take the note text and return new
text, or raise `ValidationFailed` with `details.reason` = `not_found` | `ambiguous` and change
nothing; a heading not found lists the headings that are there (`details.headings`), a block id
not found the block ids (`details.blocks`, the closest in `details.suggestions`).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from service.errors import ValidationFailed
from service.markdown import frontmatter as fm
from service.markdown import line_ends
from service.markdown.outline import Outliner, outline
from service.markdown.parse import Heading

Position = Literal["before", "after", "prepend", "append", "replace"]
MAX_SHOWN = 20  # headings named in a not_found message
MAX_LISTED = 200  # in its details
MAX_COMPARED = 2000  # block ids a missing one is compared with for the closest


@dataclass(frozen=True, slots=True)
class Span:
    """Lines [start, end) of the note; `body_start` is the first line after a heading line;
    `detached`: a block whose `^id` is on a line of its own, the span's last."""

    start: int
    end: int
    body_start: int
    detached: bool = False
    matches: tuple[int, ...] = ()  # `first`: the heading lines (0-based) a repeated heading text matched


def _norm(text: str) -> str:
    """White space runs as one space (str.split reads it as `\\s` does), any letter case, and one
    Unicode form: a heading written in NFD (`Cafe` + U+0301, text from a macOS file name) is the
    heading a caller or a link names in NFC."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split()).casefold()


# The punctuation Obsidian's link resolution reads as spaces when it compares a link's heading
# with a note's (its API's `stripHeading`): what `link_key` compares by.
_PUNCTUATION = re.compile(r"[!\"#$%&()*+,.:;<=>?@^`{|}~/\[\]\\]")
# What a link to a heading cannot hold, written as spaces (Obsidian's `stripHeadingForLink`, what it
# writes when it completes a link to a heading: `: # | ^ \`, `%%`, `[[`, `]]`, line ends), and a
# single `[` or `]`, which Obsidian keeps but ends a wikilink as the index reads one (`stripHeading`
# reads both as spaces, so the link names the same heading).
_UNLINKABLE = re.compile(r"[:#|^\\\[\]\r\n]|%%")


def link_text(text: str) -> str:
    """A heading as a link to it writes it, the one spelling every tool gives (get_outline's
    `link`, find_broken_links' suggestions): what a link cannot hold as spaces, runs of white
    space as one; the rest as written (`## Step 1: Setup` is `Step 1 Setup`, `## Tasks #work`
    `Tasks work`, `## What's new?` itself, `## [[Link|Shown]] x` `Link Shown x`). Its `link_key`
    is the heading's, so `heading_span` and `service.graph.subpaths` find that heading by it."""
    return " ".join(_UNLINKABLE.sub(" ", text).split())


def link_key(text: str) -> str:
    """A heading as a link's heading is compared with it (`_PUNCTUATION` as spaces), normalised as
    `_norm`: also what `service.graph.subpaths` compares a link's heading with a note's by."""
    return _norm(_PUNCTUATION.sub(" ", text))


def find_heading(text: str, path: list[str], *, first: bool = False) -> Span:
    """The section named by a heading path, outermost first (e.g. ["Plan", "Goals"])."""
    text = line_ends.lf(text)  # a CR alone ends a line (as `outline` reads it)
    return heading_span(outline(text, blocks=False)[0] if path else [], text.count("\n") + 1, path, first=first)


def heading_span(headings: list[Heading], total: int, path: list[str], *, first: bool = False) -> Span:
    """`find_heading`'s span, of a note of `total` lines whose headings are `headings`. A heading
    text several sections have (at one level of the path) is `ambiguous`, or with `first` the
    first of them, as Obsidian opens a link to it (`Span.matches`: the lines of them all)."""
    if not path:
        raise ValidationFailed("heading path is empty", details={"field": "heading", "reason": "empty"})
    spans: list[Span] = []
    repeated: tuple[int, ...] = ()
    window_start, window_end, min_level = 0, total, 0
    for depth, wanted in enumerate(path):
        key = _norm(wanted.lstrip("#").strip())
        inside = [h for h in headings if window_start <= h.line < window_end and h.level > min_level]
        matches = [h for h in inside if _norm(h.text) == key]
        if not matches:  # as a link to it spells it (`Step 1 Setup` for `Step 1: Setup`)
            linked = link_key(wanted.lstrip("#"))  # once: per heading, a long one cost its length each time
            matches = [h for h in inside if link_key(h.text) == linked]
        if depth > 0 and matches:
            # Prefer the shallowest match inside the parent section (direct children first).
            shallowest = min(h.level for h in matches)
            matches = [h for h in matches if h.level == shallowest]
        if not matches:
            present = [h.text for h in inside]
            where = f"under {' > '.join(path[:depth])!r}" if depth else "in the note"
            shown = ", ".join(repr(t) for t in present[:MAX_SHOWN]) + (" ..." if len(present) > MAX_SHOWN else "")
            raise ValidationFailed(
                f"heading {' > '.join(path[: depth + 1])!r} not found; headings {where}: {shown or 'none'}",
                details={
                    "field": "heading",
                    "reason": "not_found",
                    "heading": path[: depth + 1],
                    "headings": present[:MAX_LISTED],
                    "headings_total": len(present),
                },
                hint="Pass one of details.headings (a nested heading as a path, outermost first)."
                if present
                else "This part of the note has no headings: append, prepend or use a block or anchor.",
            )
        if len(matches) > 1 and first:
            repeated = repeated or tuple(h.line for h in matches)
        elif len(matches) > 1:
            raise ValidationFailed(
                f"heading {' > '.join(path[: depth + 1])!r} is ambiguous ({len(matches)} matches): "
                "give the full heading path",
                details={
                    "field": "heading",
                    "reason": "ambiguous",
                    "heading": path[: depth + 1],
                    "lines": [h.line + 1 for h in matches],
                },
            )
        chosen = matches[0]
        end = next((h.line for h in headings if h.line > chosen.line and h.level <= chosen.level), total)
        window_start, window_end, min_level = chosen.line + 1, end, chosen.level
        spans.append(Span(chosen.line, end, chosen.line + 1, matches=repeated))
    return spans[-1]


def find_block(text: str, block_id: str) -> Span:
    """The block carrying `^block_id`, its lines up to the id's (`Outliner.block_starts`): the
    paragraph or list item it ends, or, for an id on a line of its own after a blank line
    (Obsidian's form for a quote, callout, list, table), the block above it with the blank and
    the id's line (`detached`)."""
    block_id = block_id.lstrip("^")
    text = line_ends.lf(text)
    body = fm.fences(text).body_line
    found = Outliner()
    no, pos = 0, 0
    while True:  # line by line, without holding the note's lines
        end = text.find("\n", pos)
        raw = (text[pos:] if end < 0 else text[pos:end]).rstrip("\r")
        if no >= body:
            found.feed(no, raw)
        found.paragraph(no, raw)
        if end < 0:
            break
        pos, no = end + 1, no + 1
    if block_id not in found.found:
        raise missing_block(block_id, list(found.found))
    first, last = found.block_starts[block_id], found.found[block_id]
    return Span(first, last + 1, first, detached=first < last and _alone(text, last, block_id))


def _alone(text: str, line: int, block_id: str) -> bool:
    """Whether line `line` of `text` is `^block_id` alone."""
    at = 0
    for _ in range(line):
        at = text.index("\n", at) + 1
    end = text.find("\n", at)
    return (text[at:] if end < 0 else text[at:end]).strip() == f"^{block_id}"


def missing_block(block_id: str, present: list[str]) -> ValidationFailed:
    """The not_found error of a block id the note does not have: it lists the ones it has
    (`details.blocks`, in note order, the first `MAX_LISTED`), the closest of the first
    `MAX_COMPARED` first in the message and in `details.suggestions`, as a missing heading lists
    the headings."""
    compared = present[:MAX_COMPARED]
    close = difflib.get_close_matches(block_id.casefold(), [b.casefold() for b in compared], n=MAX_SHOWN, cutoff=0.5)
    folded = {b.casefold(): b for b in reversed(compared)}  # the first id of each folded form
    named = list(dict.fromkeys([*(folded[c] for c in close), *present[:MAX_SHOWN]]))[:MAX_SHOWN]
    shown = ", ".join(f"^{b}" for b in named) + (" ..." if len(present) > MAX_SHOWN else "")
    return ValidationFailed(
        f"block ^{block_id} not found; block ids in the note: {shown or 'none'}",
        details={
            "field": "block",
            "reason": "not_found",
            "block": block_id,
            "blocks": present[:MAX_LISTED],
            "blocks_total": len(present),
            "suggestions": [folded[c] for c in close][:5],
        },
        hint="Use one of details.blocks, the note's block ids (details.suggestions: the closest to the one given)."
        if present
        else "The note has no block ids: read it by heading or lines, or add ' ^id' at the end of a paragraph.",
    )


def find_anchor(text: str, anchor: str) -> int:
    """Character offset of the unique occurrence of `anchor` in the note body."""
    if not anchor:
        raise ValidationFailed("anchor is empty", details={"field": "anchor", "reason": "empty"})
    body_start = fm.fences(text).body_start
    count = text.count(anchor, body_start)
    if count == 0:
        raise ValidationFailed("anchor text not found", details={"field": "anchor", "reason": "not_found"})
    if count > 1:
        raise ValidationFailed(
            f"anchor text occurs {count} times: make it unique",
            details={"field": "anchor", "reason": "ambiguous", "matches": count},
        )
    return text.index(anchor, body_start)


def _block(content: str) -> list[str]:
    """Content as whole lines (a trailing newline does not add an empty line)."""
    return content[:-1].split("\n") if content.endswith("\n") else content.split("\n")


def _trim_end(lines: list[str], start: int, end: int) -> int:
    """The end of a span without its trailing blank lines (kept as the separator)."""
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


_LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s")
_HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")


def _needs_gap(above: str, below: str) -> bool:
    """Whether a blank line must separate two adjacent lines so neither block swallows the other.

    Without it a paragraph line continues the paragraph above it (and a `^id` would no longer end
    its block), and plain text after a list item becomes part of that item. Two list items stay
    together (one list), and a heading line ends its own block.
    """
    if not above.strip() or not below.strip():
        return False
    if _LIST_ITEM.match(above) and _LIST_ITEM.match(below):
        return False
    if above.lstrip().startswith("|") and below.lstrip().startswith("|"):
        return False  # rows of one table
    return not _HEADING.match(above)


def _insert(lines: list[str], at: int, new: list[str], floor: int) -> None:
    """Insert `new` before lines[at], adding blank lines where Markdown needs them.

    `floor` is the first body line: nothing is added between frontmatter and inserted text.
    """
    if at == len(lines) and lines and lines[-1] == "" and at > floor:
        at -= 1  # stay before the empty element that stands for the text's final newline
    block = list(new)
    if at > floor and _needs_gap(lines[at - 1], block[0]):
        block.insert(0, "")
    if at < len(lines) and _needs_gap(block[-1], lines[at]):
        block.append("")
    lines[at:at] = block


def patch_lines(text: str, span: Span, position: Position, content: str, *, keep_block_id: str | None = None) -> str:
    """Insert or replace whole lines relative to a heading section or a block.

    A section (`body_start > start`): `before` its heading line, `prepend` right after the heading
    line, `append` after its last non-blank line (nested sub-sections included), `after` the whole
    section (before the next heading of the same or a higher level), `replace` everything under
    the heading. A block (`body_start == start`): `before`/`prepend` insert ahead of it,
    `after`/`append` behind it (and its `^id` line), `replace` swaps its lines and keeps its
    `^id` (a `detached` id's own line stays as it is, under the new lines). Inserted text is
    its own block: blank lines are added where it would otherwise merge with its neighbours.
    """
    lines = text.split("\n")
    new = _block(content)
    floor = fm.fences(text).body_line
    is_block = span.body_start == span.start
    if position == "replace":
        end = _trim_end(lines, span.body_start, span.end)
        id_line_kept = bool(keep_block_id and new and span.detached and f"^{keep_block_id}" not in content)
        if id_line_kept:  # the id's own line stays under the new lines, as far below as it was
            end = _trim_end(lines, span.body_start, span.end - 1)
        elif keep_block_id and new and f"^{keep_block_id}" not in content:
            new[-1] = f"{new[-1]} ^{keep_block_id}"
        if new and end < len(lines) and not id_line_kept and _needs_gap(new[-1], lines[end]):
            new.append("")
        lines[span.body_start : end] = new
        return "\n".join(lines)
    if position == "before" or (position == "prepend" and is_block):
        at = span.start
    elif position == "prepend":
        at = span.body_start
    elif position == "append" and not is_block:
        at = _trim_end(lines, span.body_start, span.end)
    else:  # 'after' a section or a block, 'append' to a block
        at = span.end
    _insert(lines, at, new, floor)
    return "\n".join(lines)


def patch_anchor(text: str, offset: int, anchor: str, position: Position, content: str) -> str:
    if position in ("before", "prepend"):
        return text[:offset] + content + text[offset:]
    if position in ("after", "append"):
        end = offset + len(anchor)
        return text[:end] + content + text[end:]
    return text[:offset] + content + text[offset + len(anchor) :]


def section_text(text: str, span: Span) -> str:
    """The section's lines without its trailing blank lines, a CRLF note's (`\r` alone) too: a
    section ends as read by its lines (`part_reads`) and in the LF form of the same note."""
    lines = line_ends.lf(text).split("\n")[span.start : span.end]
    while len(lines) > 1 and lines[-1] in ("", "\r"):
        lines.pop()
    return "\n".join(lines) + "\n"


def keeping_crlf(change: Callable[[str], str]) -> Callable[[str], str]:
    """`change` made on the note's LF form and given back with its own line ends, CRLF or a CR
    alone (`line_ends.keeping`), so the lines it inserts end as the note's do (never a mix)."""
    return line_ends.keeping(change)


def insert_after_frontmatter(text: str, content: str) -> str:
    """Prepend to a note's body: after the frontmatter block when there is one."""
    start = fm.fences(text).body_start
    return text[:start] + content + text[start:]
