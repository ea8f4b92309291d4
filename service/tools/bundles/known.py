"""context bundles domain: a later page of a long note read from the part it packs.

A page that splits a long note (`SCAN_KEPT_FROM` characters or more, read as UTF-8) keeps what
its next pages need besides the text (`Known`): the version's etag and the file's `Settled` key
(`service.vault.settled`), the note's length, where each mode's part starts and ends, and the
byte offset of every `STEP`-th character (none for an ASCII note, whose characters are its
bytes). A next page whose cursor names that etag, while the file's key is unchanged and the
note's scan is kept (`window.scanned`), reads only the bytes of the characters it packs: a page
of a 50 MB note read, decoded and hashed all 50 MB (~115 ms of CPU) for 100 KB. Anything else —
the key changed, the scan or the entry gone, a read seeing the file change — reads the note
whole as before (the resume check then compares etags).
"""

from __future__ import annotations

import contextlib
from array import array
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from service.retrieval.sensitive import Guard, Span
from service.tools.bundles.window import KEPT_SCANS, Marks, redacted_window
from service.vault.files import NoteFile, VaultFiles
from service.vault.paths import VaultPath
from service.vault.settled import Settled, read_range

STEP = 65_536  # characters between two known byte offsets


@dataclass(frozen=True, slots=True)
class Known:
    key: Settled
    vp: VaultPath
    etag: str
    mtime: float
    length: int  # characters
    size: int  # bytes
    bounds: dict[str, tuple[int, int]]  # each mode's part of the note (`_select`)
    marks: array[int] | None  # the byte offset of every STEP-th character; None: ASCII


def learn(scans: OrderedDict[Hashable, Any], note: NoteFile, key: Settled, bounds: dict[str, tuple[int, int]]) -> None:
    """Keep what a next page of `note` (read with the key `key`) needs besides its text."""
    text = note.content
    marks: array[int] | None = None
    if not text.isascii():
        marks, at = array("q", [0]), 0
        for k in range(0, len(text), STEP):
            at += len(text[k : k + STEP].encode("utf-8", "surrogatepass"))
            marks.append(at)
    known = Known(key, note.path, note.etag, note.stat.mtime, len(text), note.stat.size, bounds, marks)
    scans[("known", note.path.rel)] = known
    while len(scans) > KEPT_SCANS + 1:  # one page's note: its scan and this
        with contextlib.suppress(KeyError):
            scans.popitem(last=False)


def known_of(scans: OrderedDict[Hashable, Any], rel: str) -> Known | None:
    found = scans.get(("known", rel))
    return found if isinstance(found, Known) else None


def kept_scan(scans: OrderedDict[Hashable, Any], guard: Guard, known: Known) -> tuple[list[Span], bool] | None:
    """The note's kept scan (`window.scanned`'s), or None when it is gone."""
    found: tuple[list[Span], bool] | None = scans.get((known.vp.rel, known.etag, guard.fingerprint, guard.terms))
    return found


class _Reach:
    """Records which characters of the note `redacted_window` cuts (nothing is read)."""

    def __init__(self) -> None:
        self.lo, self.hi = -1, -1

    def __getitem__(self, part: slice) -> str:
        lo, hi = part.start, part.stop
        if lo < hi:
            self.lo = lo if self.lo < 0 else min(self.lo, lo)
            self.hi = max(self.hi, hi)
        return ""


class _Shifted:
    """Characters `lo` onwards of the note, sliced in the note's offsets."""

    def __init__(self, text: str, lo: int) -> None:
        self.text, self.lo = text, lo

    def __getitem__(self, part: slice) -> str:
        return self.text[part.start - self.lo : part.stop - self.lo]


def known_window(
    files: VaultFiles, known: Known, spans: list[Span], first: int, last: int, start: int, width: int
) -> tuple[str, Marks] | None:
    """`redacted_window` of the known note from the bytes of the characters it cuts, or None when
    the file is no longer the version `known` names."""
    reach = _Reach()
    redacted_window(reach, spans, first, last, start, width)
    lo, hi = reach.lo, reach.hi
    text = ""
    if lo < hi:
        if known.marks is None:
            data = read_range(files, known.vp, known.key, lo, hi)
            if data is None:
                return None
            text = data.decode("ascii")
        else:
            base = lo // STEP
            data = read_range(
                files, known.vp, known.key, known.marks[base], known.marks[min(-(-hi // STEP), len(known.marks) - 1)]
            )
            if data is None:
                return None
            text = data.decode("utf-8")[lo - base * STEP : hi - base * STEP]
        if len(text) != hi - lo:  # the file is not what was learnt of it
            return None
    return redacted_window(_Shifted(text, lo), spans, first, last, start, width)
