"""A part of a note longer than an answer may hold (`[governor] max_response_bytes`), read by its
lines from the file: a heading section, a block, a line range, the frontmatter or the body.

read_note refuses such a note read whole before reading it (`too_long`); a part of it was
read by reading and decoding the whole file (a 50 MB note: ~100 MB at its peak). Here the file is
read a chunk at a time (`VaultFiles.scan`), twice at most: the first pass hashes it (the etag),
counts its lines, keeps its first `cap + 1` characters (what the index reads of it: its
properties, tags and links, `note_facts`) and reads its headings and block ids (`Outliner`, the
reading `parse_note` makes); the second keeps the lines of the part only. What is held is bounded
by the answer's limit and `cap`, whatever the note's size:

- a line longer than the limit is not held: a part holding it is `overflow` (with its size), and a
  heading or block address is too (its line may be a heading, a fence or a comment mark: the
  note's structure cannot be read without it), while a line range that leaves it is read;
- a note that is not UTF-8 is `overflow` (reason `not_utf8`): its encoding is decided from all
  of it (`service.vault.decoding`), which means holding it;
- frontmatter longer than `cap` characters is `overflow` (reason `frontmatter`).

The part is answered with the line ends its lines have in the file (a mix kept); a last line
without one is given the note's most common line end.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, Literal

from service.errors import Conflict, Overflow, ValidationFailed
from service.markdown import frontmatter as fm
from service.markdown import sections
from service.markdown.outline import Outliner

CHUNK = 1 << 20
_BREAK = re.compile(r"(\r\n|\r|\n)")
Kind = Literal["block", "heading", "lines", "frontmatter", "body"]


@dataclass(frozen=True, slots=True)
class Wanted:
    """The part asked for: a block id, a heading path, lines first..last (1-based), or a part."""

    kind: Kind
    block: str = ""
    heading: tuple[str, ...] = ()
    first: int = 1
    last: int | None = None


@dataclass(frozen=True, slots=True)
class Part:
    content: str
    first: int  # 1-based, as read_note answers
    last: int
    total: int  # the note's lines
    etag: str
    start: str  # the note's first `cap + 1` characters
    matches: tuple[int, ...] = ()  # a repeated heading's lines (0-based: `sections.Span.matches`)


MAX_HEADING_MATCHES = 100  # a note repeating one heading 200,000 times answered them all: an overflow
HEADING_MATCHES = (
    "Set when the heading named several sections (a heading text the note repeats): the line of each (1-based; "
    f"the first {MAX_HEADING_MATCHES}). `content` is the first, as Obsidian opens a link to it; read another by its "
    "heading path or its lines."
)


def heading_lines(lines: tuple[int, ...]) -> list[int] | None:
    """read_note's `heading_matches` of a repeated heading's lines (0-based: `sections.Span.matches`),
    the first `MAX_HEADING_MATCHES`: the list is a pointer to the others, not a listing of the note."""
    return [line + 1 for line in lines[:MAX_HEADING_MATCHES]] or None


def too_long(
    size: int, limit: int, why: str = "", reason: str | None = None, tool: str = "read_note", hint: str | None = None
) -> Overflow:
    """read_note's `overflow` for text of at least `size` bytes (`why`: what made a part
    unreadable): the answer holds it twice (its content and its text), so it is refused before it
    is built (the governor would refuse it after)."""
    details: dict[str, object] = {"bytes": size, "limit": limit, "tool": tool}
    if reason:
        details["reason"] = reason
    return Overflow(
        f"result of at least {size} bytes exceeds the {limit}-byte limit{why}",
        details=details,
        hint=hint or _PART,
    )


_PART = (
    "Read a part: a line range (start_line, end_line), a heading section, or part='frontmatter' (get_outline lists "
    "the headings and their lines); bundle_files (paths=[the note]) sends a note in pages cut inside long lines."
)


def line_too_long(line: int, size: int, limit: int, tool: str = "read_note", why: str = "") -> Overflow:
    """`overflow` of one line (1-based `line`) longer than an answer or a part may hold: a line range
    cannot read it (details.reason 'line_too_long', details.line), so the hint says what can."""
    error = too_long(size, limit, why or f": line {line} alone is more", "line_too_long", tool, _line_hint(line, tool))
    error.details["line"] = line
    return error


def _line_hint(line: int, tool: str) -> str:
    what = "no outline of the note can be read" if tool == "get_outline" else "no line range reads it"
    return (
        f"Line {line} alone is longer than an answer may hold: {what}. bundle_files with paths=[the note] sends the "
        "note in pages cut inside long lines; read_note reads its other lines by a line range (start_line, end_line)."
    )


_UNREAD = (
    "A note this long is read by its lines, from UTF-8 and with frontmatter of at most [limits] "
    "max_indexed_note_chars characters; with a larger [governor] max_response_bytes it is read whole."
)


class _NotUtf8(Exception):
    pass


Line = tuple[str | None, int, str]  # the line (None: longer than held), its length, its end ("" for the last)


def _lines(fh: BinaryIO, longest: int, sha: Any = None, ends: Counter[str] | None = None) -> Iterator[Line]:
    """The lines of the open note `fh` from its start, decoded as UTF-8 a chunk at a time; a line
    longer than `longest` characters is not held (None). `sha` is given every byte read, `ends`
    the count of each line end."""
    utf8 = codecs.getincrementaldecoder("utf-8")()
    pending, over, carry = "", -1, ""  # the line so far; its length once over `longest` (-1: held)
    while True:
        data = fh.read(CHUNK)
        if sha is not None:
            sha.update(data)
        try:
            text = carry + utf8.decode(data, final=not data)
        except UnicodeDecodeError:
            raise _NotUtf8 from None
        carry = ""
        if data and text.endswith("\r"):  # its LF may be in the next chunk
            text, carry = text[:-1], "\r"
        if "\r" in text:
            parts = _BREAK.split(text)
            lines, breaks = parts[::2], parts[1::2]
        else:  # most notes: LF alone, split in C
            lines = text.split("\n")
            breaks = ["\n"] * (len(lines) - 1)
        if ends is not None:
            crlf = text.count("\r\n")
            ends.update({"\r\n": crlf, "\r": text.count("\r") - crlf, "\n": text.count("\n") - crlf})
        for i, end in enumerate(breaks):
            if over >= 0:
                yield None, over + len(lines[i]), end
            else:
                line = pending + lines[i] if pending else lines[i]
                yield (line if len(line) <= longest else None), len(line), end
            pending, over = "", -1
        if over >= 0:
            over += len(lines[-1])
        else:
            pending += lines[-1]
            if len(pending) > longest:
                pending, over = "", len(pending)
        if not data:
            yield (None, over, "") if over >= 0 else (pending, len(pending), "")
            return


class _Kept:
    """The lines first..end (0-based, `end` excluded; None: to the note's end) of the lines given
    in order, held while the answer (sent twice) stays within `limit`; counted past it."""

    def __init__(self, first: int, end: int | None, limit: int) -> None:
        self.first, self.end, self.limit = first, end, limit
        self.lines: list[tuple[str, str]] | None = []
        self.chars = 0

    def add(self, no: int, got: Line) -> None:
        line, length, end = got
        if no < self.first or (self.end is not None and no >= self.end):
            return
        self.chars += length + len(end)
        if self.lines is not None and line is not None and 2 * self.chars <= self.limit:
            self.lines.append((line, end))
        else:
            self.lines = None

    def held(self) -> list[tuple[str, str]]:
        if self.lines is None and self.end is not None and self.end - self.first == 1:
            raise line_too_long(self.first + 1, 2 * self.chars, self.limit)  # one line asked for: no range helps
        if self.lines is None:
            raise too_long(2 * self.chars, self.limit)
        return self.lines


def _start(fh: BinaryIO, cap: int, longest: int) -> tuple[str, bool]:
    """The note's first `cap + 1` characters (up to a line too long to hold), and whether that is
    all of the note."""
    got: list[str] = []
    chars, whole = 0, False
    for line, length, end in _lines(fh, longest):
        if line is None:
            break
        got.append(line + end)
        chars += length + len(end)
        if not end:
            whole = True
            break
        if chars > cap:
            break
    fh.seek(0)
    return "".join(got)[: cap + 1], whole


def read_part(fh: BinaryIO, wanted: Wanted, limit: int, cap: int) -> Part:
    """`wanted` of the open note `fh` (the module docstring); `overflow` as it says."""
    before = os.fstat(fh.fileno())
    size, longest = before.st_size, max(limit // 2, cap + 1)
    try:
        return _read(fh, wanted, limit, cap, size, longest, before)
    except _NotUtf8:
        raise too_long(
            size, limit, ": the note is not UTF-8, and a part of a long note is read from UTF-8 only", "not_utf8"
        ) from None


def _read(fh: BinaryIO, wanted: Wanted, limit: int, cap: int, size: int, longest: int, before: os.stat_result) -> Part:
    start, whole = _start(fh, cap, longest)
    front = fm.fences(start)
    if front.raw is None and start.startswith(("---", "\ufeff---")) and not whole and fm.fences(start + "\n---\n").raw:
        raise too_long(size, limit, f": its frontmatter is longer than {cap} characters", "frontmatter")
    structure = wanted.kind in ("block", "heading")
    outliner = Outliner(blocks=wanted.kind == "block")
    sha = hashlib.sha256()
    ends: Counter[str] = Counter()
    kept = _Kept(*_range(wanted, front.body_line), limit)
    count, last_length = 0, 0
    block = wanted.kind == "block"
    for no, got in enumerate(_lines(fh, longest, sha, ends)):
        line, last_length, end = got
        count = no + 1
        if structure:
            if line is None:
                why = f": line {no + 1} alone is more, and the note is read by its lines"
                raise line_too_long(no + 1, 2 * last_length, limit, why=why)
            if no >= front.body_line:
                outliner.feed(no, line)
            if block:
                outliner.paragraph(no, line)
        else:
            kept.add(no, got)
    total = count - 1 + (1 if last_length or count == 1 else 0)
    usual = max(("\n", "\r\n", "\r"), key=lambda e: ends[e])
    etag = sha.hexdigest()[:32]
    if wanted.kind == "frontmatter":
        first, last = (2, front.body_line - 1) if front.raw is not None else (1, 0)
        content = front.raw or ""
    elif wanted.kind == "body":
        content, first, last = "".join(line + end for line, end in kept.held()), front.body_line + 1, total
    else:
        if wanted.kind == "lines":
            first = wanted.first
            if first > max(total, 1):
                raise ValidationFailed(
                    f"start_line {first} is past the end of the note ({total} lines)",
                    details={"field": "start_line", "total_lines": total},
                )
            lines = kept.held()[: min(wanted.last or total, total) - first + 1]
        else:
            a, b, matches = _span(outliner, count, wanted)
            fh.seek(0)
            kept = _Kept(a, b, limit)
            for no, got in enumerate(_lines(fh, longest)):
                if no >= b:
                    break
                kept.add(no, got)
            lines, first = kept.held(), a + 1
            if wanted.kind == "heading":  # without its trailing blank lines, as `sections.section_text`
                while len(lines) > 1 and not lines[-1][0]:
                    lines.pop()
        content = "".join(line + end for line, end in lines[:-1])
        content += lines[-1][0] + (lines[-1][1] or usual) if lines else usual
        last = first + len(lines) - 1
    after = os.fstat(fh.fileno())
    if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        raise Conflict("the note changed while it was read: read it again", details={"reason": "changed_while_read"})
    return Part(content, first, last, total, etag, start, matches if wanted.kind == "heading" else ())


def _range(wanted: Wanted, body_line: int) -> tuple[int, int | None]:
    """The lines a one-pass part keeps (0-based, the end excluded)."""
    if wanted.kind == "lines":
        return wanted.first - 1, wanted.last
    if wanted.kind == "body":
        return body_line, None
    return 0, 0


def _span(outliner: Outliner, lines: int, wanted: Wanted) -> tuple[int, int, tuple[int, ...]]:
    """Lines [start, end) of a block or heading section, as `sections.find_block` / `find_heading`
    give them (the first section of a repeated heading, as read_note reads it), and the lines of
    a repeated heading's matches."""
    if wanted.kind == "block":
        block = wanted.block.lstrip("^")
        if block not in outliner.found:
            raise sections.missing_block(block, list(outliner.found))
        return outliner.block_starts[block], outliner.found[block] + 1, ()
    span = sections.heading_span(outliner.headings, lines, list(wanted.heading), first=True)
    return span.start, span.end, span.matches


def each_line(fh: BinaryIO, limit: int, cap: int, take: Callable[[int, str, int], None], tool: str) -> tuple[int, str]:
    """Every line of the open note `fh` in order, as `read_part` reads them, given to
    `take(no, line, body_line)` (0-based; `body_line`: the first line after its frontmatter):
    (the note's lines, its etag). A line longer than a part may hold, a note that is not UTF-8 or
    frontmatter longer than `cap` is `overflow` (`read_part`: its structure cannot be read)."""
    before = os.fstat(fh.fileno())
    size, longest = before.st_size, max(limit // 2, cap + 1)
    try:
        start, whole = _start(fh, cap, longest)
        front = fm.fences(start)
        if (
            front.raw is None
            and start.startswith(("---", "\ufeff---"))
            and not whole
            and fm.fences(start + "\n---\n").raw
        ):
            raise too_long(
                size, limit, f": its frontmatter is longer than {cap} characters", "frontmatter", tool, _UNREAD
            )
        sha = hashlib.sha256()
        count, last_length = 0, 0
        for no, (line, last_length, _end) in enumerate(_lines(fh, longest, sha)):
            count = no + 1
            if line is None:
                why = f": line {no + 1} alone is more, and the note is read by its lines"
                raise line_too_long(no + 1, 2 * last_length, limit, tool, why)
            take(no, line, front.body_line)
    except _NotUtf8:
        raise too_long(
            size,
            limit,
            ": the note is not UTF-8, and a long note is read by its lines from UTF-8 only",
            "not_utf8",
            tool,
            _UNREAD,
        ) from None
    after = os.fstat(fh.fileno())
    if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        raise Conflict("the note changed while it was read: read it again", details={"reason": "changed_while_read"})
    return count, sha.hexdigest()[:32]
