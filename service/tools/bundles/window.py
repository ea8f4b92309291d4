"""context bundles domain: the part of a note a page packs, redacted without redacting the rest.

A note is packed from its redacted text (each secret span replaced by `[REDACTED:<kind>]`,
`service.retrieval.sensitive.redact_spans`), in that text's offsets: `start`, `length` and the
cursor's resume point. A page of a long note needs only the part from its start as long as a page
can hold (`Packer.reach`): `redacted_window` makes that part, and the markers in it, from the
note's text and its spans, so a page of a 50 MB note no longer redacts (and copies) all 50 MB; the
note's scan for secrets is kept per version for its next pages (`scanned`). Pure.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Protocol

from service.retrieval.sensitive import Guard, Span
from service.vault.files import NoteFile

KEPT_SCANS, SCAN_KEPT_FROM = 4, 1_000_000  # notes of this many characters keep their scan (per vault)
Marks = list[tuple[int, int]]


class Sliced(Protocol):
    """A note's text as `redacted_window` reads it: slices only (`known` reads them from the file)."""

    def __getitem__(self, part: slice, /) -> str: ...


def marker(span: Span) -> str:
    """What replaces `span` in the redacted text (as `redact_spans` writes it)."""
    return f"[REDACTED:{span.kind}]"


def redacted_length(length: int, spans: list[Span]) -> int:
    """The length of a text of `length` characters once `spans` (in order, in it) are redacted."""
    return length + sum(len(marker(s)) - (s.end - s.start) for s in spans)


def redacted_window(
    text: Sliced, spans: list[Span], first: int, last: int, start: int, width: int
) -> tuple[str, Marks]:
    """`redact_spans(text[first:last], spans)`'s characters `start` to `start + width` (`spans` in
    the offsets of `text[first:last]`) and the markers overlapping them, in the window's offsets;
    made from that part of the note only."""
    end = start + width
    parts: list[str] = []
    marks: Marks = []
    at = pos = 0  # where the redacted text and the note's part are, before the next span
    for s in spans:
        if at >= end:
            break
        lo, hi = max(start, at), min(end, at + s.start - pos)  # the plain text before the span
        if lo < hi:
            parts.append(text[first + pos + lo - at : first + pos + hi - at])
        at += s.start - pos
        mark = marker(s)
        if at < end and at + len(mark) > start:
            parts.append(mark[max(start - at, 0) : end - at])
            marks.append((at - start, at + len(mark) - start))
        at, pos = at + len(mark), s.end
    lo, hi = max(start, at), min(end, at + last - first - pos)  # the plain text after the last span
    if lo < hi:
        parts.append(text[first + pos + lo - at : first + pos + hi - at])
    return "".join(parts), marks


def scanned(scans: OrderedDict[Hashable, Any], guard: Guard, note: NoteFile) -> tuple[list[Span], bool]:
    """The note's secret spans and whether it is sensitive: scanned once per version for the
    pages of a long note (a 50 MB note: ~2 s of scans a page, each page of 100 KB), kept in
    `scans` (the vault's, `KEPT_SCANS` of them)."""
    key = (note.path.rel, note.etag, guard.fingerprint, guard.terms)
    kept: tuple[list[Span], bool] | None = scans.get(key)
    if kept is None:
        spans = guard.spans(note.content)
        kept = (spans, bool(spans) or guard.mentions(note.content))  # `topical` without tags
        if len(note.content) >= SCAN_KEPT_FROM:
            scans[key] = kept
            while len(scans) > KEPT_SCANS:  # pages run in worker threads: popitem is one step
                with contextlib.suppress(KeyError):
                    scans.popitem(last=False)
    return kept
