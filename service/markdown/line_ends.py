"""A note's line ends: LF, CRLF (Windows) or a carriage return alone (classic Mac OS), which
Obsidian's editor (CodeMirror) reads as a line end too, whichever mix of them a note holds: every
CR, LF and CRLF ends a line there, and the note shows the same lines whatever its bytes.

Readers take a note in its LF form (`lf`: each lone CR read as LF, the same length, so offsets
hold; a CRLF's CR is stripped by the reader as before). An edit (`keeping`) is made on the note's
lines joined by LF (the lines its readers count) and written back line by line: a line the edit
leaves keeps its own end, a line it changes in place keeps the end it had, and a line it inserts
ends as most lines of the note do. So a CRLF note stays CRLF, a CR note stays CR, and a note
mixing them keeps each untouched line's bytes (a stray CR in a CRLF note, the CR lines of an LF
note): Obsidian reads them all the same, and the file changes only where the edit did.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from difflib import SequenceMatcher

from service.errors import ValidationFailed

_LONE_CR = re.compile(r"\r(?!\n)")


def lf(text: str) -> str:
    """`text` with each lone CR as LF (same length and offsets); CRLF and LF stay. A note without
    a lone CR (nearly all) is given back as it is after two or three scans in C."""
    if "\r" not in text or text.count("\r") == text.count("\r\n"):
        return text
    return _LONE_CR.sub("\n", text)


def ending(text: str) -> str:
    """The note's own line end: "\\r\\n" when every LF is part of a CRLF, "\\r" when there is no LF
    but a CR, else "\\n" (LF, mixed, or no line break)."""
    if "\r" not in text:
        return "\n"
    lfs = text.count("\n")
    if not lfs:
        return "\r"
    return "\r\n" if lfs == text.count("\r\n") else "\n"


def to_lf(text: str, end: str) -> str:
    """`text`, whose line end is `end` (`ending`), with LF line ends."""
    if end == "\r\n":  # a stray CR alone in it is a line end too, as its readers count lines; the CR
        # of "\r\r\n" is one as well (read before the CRLFs are joined: else it joined the CRLF)
        return lf(text).replace("\r\n", "\n")
    if end == "\r":
        return text.replace("\r", "\n")
    return lf(text)


def from_lf(text: str, end: str) -> str:
    """`text` made on the LF form, given back with the line end `end` (a CRLF an edit inserted too)."""
    if end == "\n":
        return text
    return text.replace("\r\n", "\n").replace("\n", end)


def view(text: str) -> str:
    """`text` with every line end (CR, LF, CRLF, in any mix) as LF: the lines `keeping` edits."""
    return _BREAK.sub("\n", text) if "\r" in text else text


def keeping(change: Callable[[str], str]) -> Callable[[str], str]:
    """`change`, made on the note's lines joined by LF and given back with each line's own end
    (the note as it is when `change` leaves it unchanged)."""

    def run(text: str) -> str:
        if "\r" not in text:
            return change(text)
        ends = _BREAK.findall(text)
        lines = view(text)
        changed = change(lines)
        return text if changed == lines else _with_ends(lines.split("\n"), ends, changed.split("\n"))

    return run


_BREAK = re.compile(r"\r\n|\r|\n")  # a CR before a CRLF is a line end of its own, as `lf` reads it
_MATCHED_LINES = 1_000_000  # past this many pairs of changed lines, they are paired by position


def _with_ends(old: list[str], ends: list[str], new: list[str]) -> str:
    """`new`'s lines joined by the ends of the `old` lines they are (`ends[i]` ends `old[i]`); an
    inserted line, or one that had none (the last), takes the ends' most common one."""
    usual = Counter(ends).most_common(1)[0][0]
    first, last = 0, min(len(old), len(new))
    while first < last and old[first] == new[first]:
        first += 1
    tail = 0
    while tail < last - first and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    source: dict[int, int] = {}  # a line of `new` -> the line of `old` it is
    gone, added = old[first : len(old) - tail], new[first : len(new) - tail]
    if len(gone) * len(added) <= _MATCHED_LINES:
        source.update((first + j, first + i) for j, i in _matched(gone, added))
    else:
        source.update(zip(range(first, first + len(added)), range(first, first + len(gone)), strict=False))
    out: list[str] = []
    for j, line in enumerate(new):
        out.append(line)
        if j < len(new) - 1:
            i = j if j < first else j - len(new) + len(old) if j >= len(new) - tail else source.get(j)
            out.append(ends[i] if i is not None and i < len(ends) else usual)
    return "".join(out)


def _matched(gone: list[str], added: list[str]) -> Iterator[tuple[int, int]]:
    """Pairs (line of `added`, line of `gone`) that are the same line, kept or changed in place.

    difflib's matching with its junk heuristic, the longer list as its second sequence: there, a
    line more common than 1 % of a list of 200 or more (a blank line, a '---') anchors no match
    (it pairs by position inside the changed run around it), which keeps the matching near linear.
    Without it, changed runs of ~1,000 lines each with blank lines between paragraphs took 6-8 s,
    on the event loop for a note under 64 KB (`service.vault.offloop`).
    """
    swap = len(gone) > len(added)
    a, b = (added, gone) if swap else (gone, added)
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b).get_opcodes():
        if tag in ("equal", "replace"):
            olds, news = (range(j1, j2), range(i1, i2)) if swap else (range(i1, i2), range(j1, j2))
            yield from zip(news, olds, strict=False)


def line_span(text: str, first: int, last: int) -> tuple[int, int]:
    """Offsets of lines first..last (1-based) of `text`, without splitting it into lines."""
    start = 0
    for _ in range(first - 1):
        start = text.index("\n", start) + 1
    end = start
    for _ in range(last - first + 1):
        end = text.find("\n", end) + 1
        if end == 0:
            return start, len(text)
    return start, end - 1


def line_count(text: str) -> int:
    """Lines of `text` (a last line without its end counts), without splitting it."""
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def line_range(
    text: str, total: int, start_line: int | None, end_line: int | None, what: str
) -> tuple[int, int, int, int]:
    """(first, last, start, end) of the lines `start_line`..`end_line` (1-based, either open) of
    `text` (`total` lines): the lines asked for, cut at its end, and their offsets
    (`line_span`); `validation_error` for a first line past the end of the `what` ('note', 'base')."""
    first, last = start_line or 1, min(end_line or total, total)
    if first > max(total, 1):
        raise ValidationFailed(
            f"start_line {first} is past the end of the {what} ({total} lines)",
            details={"field": "start_line", "total_lines": total},
        )
    return first, last, *line_span(text, first, last)


def as_written(content: str, note: str, view: str, line: int) -> str:
    """`content`, cut from `view` (the note with lone CRs as LF, as long) from its line `line`
    (1-based), as the note has it: each line with its own end, as a part read by its lines
    (`part_reads`) answers it; a line end added past the note's end is the note's."""
    if view is note or not content:
        return content
    at = line_span(view, line, line)[0] if line > 1 else 0
    kept = note[at : at + len(content)]
    return kept + from_lf(content[len(kept) :], ending(note))
