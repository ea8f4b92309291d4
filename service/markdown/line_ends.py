"""A note's line ends: LF, CRLF (Windows) or a carriage return alone (classic Mac OS), which
Obsidian's editor (CodeMirror) reads as a line end too.

Readers take a note in its LF form (`lf`: each lone CR read as LF, the same length, so offsets
hold; a CRLF's CR is stripped by the reader as before). An edit is made on the LF form and written
back with the note's own line ends (`keeping`), so the lines it inserts end as the note's do:
a CRLF note stays CRLF, a CR note stays CR, never a mix. A note mixing LF with lone CRs is written
with LF for them (the lines an edit addresses are the lines a reader counts).
"""

from __future__ import annotations

import re
from collections.abc import Callable

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


def keeping(change: Callable[[str], str]) -> Callable[[str], str]:
    """`change`, made on the note's LF form and given back with the note's own line ends (the
    note as it is when `change` leaves it unchanged)."""

    def run(text: str) -> str:
        end = ending(text)
        if end == "\n" and "\r" not in text:
            return change(text)
        view = to_lf(text, end)
        changed = change(view)
        return text if changed == view else from_lf(changed, end)

    return run
