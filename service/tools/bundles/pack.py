"""context bundles domain, the packer: notes into pages under a content budget and a response cap.

Pure (no files, no caller): `Packer.add` takes one note's selected text at a time, in bundle
order, and says whether the page is full. Two limits hold for every page:

- the caller's budget, counted on entry contents only: UTF-8 bytes, or estimated tokens
  (`tokens`: a quarter token per ASCII character plus one per other character, rounded up: close
  to BPE tokenizers on English prose and code, and on the high side for accented or CJK text, so
  a token budget is not overrun by a real tokenizer by much);
- the response cap, counted on the JSON of the entries (sent twice: as text and as structured
  content), so a page always fits `max_response_bytes`.

A note that fits a page but not what is left of this one starts the next page. A note bigger
than a page is split: as much as fits (cut after a line break when one is in the second half)
goes on this page, `continues` is set, and the cursor says where the next page resumes.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal

Unit = Literal["bytes", "tokens"]


def tokens(text: str) -> int:
    """Estimated tokens of `text` (see the module docstring)."""
    other = len(text) - len(text.encode("ascii", "ignore"))
    return math.ceil((len(text) - other) / 4 + other)


def measure(text: str, unit: Unit) -> int:
    return len(text.encode("utf-8", "surrogatepass")) if unit == "bytes" else tokens(text)


def json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def prefix_within(text: str, limit: int, unit: Unit) -> int:
    """The length of the longest prefix of `text` measuring at most `limit`."""
    if limit <= 0:
        return 0
    if measure(text, unit) <= limit:
        return len(text)
    lo, hi = 0, min(len(text), limit * (1 if unit == "bytes" else 4))
    while lo < hi:  # largest n with measure(text[:n]) <= limit
        mid = (lo + hi + 1) // 2
        if measure(text[:mid], unit) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return lo


def cut_point(text: str, start: int, end: int) -> int:
    """`end`, moved back to just after a line break when one is in the second half of the part."""
    if end >= len(text):
        return len(text)
    newline = text.rfind("\n", start, end)
    return newline + 1 if newline >= start + (end - start) // 2 else end


@dataclass
class Piece:
    """What the packer decided for one note."""

    start: int  # character offset of the part in the note's selected text
    end: int
    continues: bool  # the rest is on a later page


@dataclass
class Packer:
    budget: int  # in `unit`, for entry contents
    unit: Unit
    cap: int  # bytes of entry JSON this page may hold (the response cap, halved)
    used: int = 0
    used_json: int = 0
    entries: int = 0
    full: bool = False

    def place(self, text: str, start: int, entry: dict[str, Any]) -> Piece | None:
        """Where the part of `text` from `start` goes: a `Piece` on this page, or None when the
        note waits for the next page (the page is then full). `entry` is the result item without
        its content, to count its JSON. The caller adds the piece with `take`."""
        rest = text[start:]
        size = measure(rest, self.unit)
        shell = json_size({**entry, "content": ""})
        body = json_size(rest) - 2
        if self.used + size <= self.budget and self.used_json + shell + body <= self.cap:
            return Piece(start, len(text), False)
        fits_a_page = size <= self.budget and shell + body <= self.cap
        if self.entries and fits_a_page:
            self.full = True
            return None
        room = prefix_within(rest, self.budget - self.used, self.unit)
        end = cut_point(text, start, start + room)
        while end > start and self.used_json + shell + json_size(text[start:end]) - 2 > self.cap:
            end = start + (end - start) * 3 // 4  # JSON escapes made it too big: shrink
        if end == start and self.entries:
            self.full = True
            return None
        end = max(end, start + 1)  # an empty page always makes progress
        self.full = True
        return Piece(start, end, True)

    def reach(self) -> int:
        """How much of a note's rest `place` may look at: a rest longer than this measures more
        than the budget (a character is at least a byte, a quarter token), and the part placed
        comes from its first `budget` bytes (4 x `budget` characters of tokens)."""
        return self.budget * (1 if self.unit == "bytes" else 4) + 1

    def take(self, content: str, entry_json: int) -> None:
        self.used += measure(content, self.unit)
        self.used_json += entry_json
        self.entries += 1
