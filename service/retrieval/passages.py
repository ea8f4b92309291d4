"""Packing ranked passages into a budget: the selection step of `context_for_query`.

Input: candidate chunks, each with its note's rank and a priority (higher first). Output: the
passages to show, in reading order, and what was left out and why. Pure (no I/O); sizes come
from a `Measure` (tokens of a tokenizer, or UTF-8 bytes).

1. Candidates are taken by priority. A chunk whose text (whitespace and case folded) was already
   taken is left out as `duplicate` (the same template text in many notes); one past
   `max_per_note` chunks of its note as `per_note_limit`, so one long note cannot crowd out the
   rest; one that does not fit what is left of the budget as `budget` — unless at least
   `min_piece` is left, in which case its head is cut to fit (`truncated`) and packing ends.
2. The chosen chunks are grouped by note (notes in rank order) and, within a note, put in the
   note's order; chunks next to each other (positions n and n+1) are merged into one passage,
   the text they share (a long paragraph cut with overlapping windows) kept once.
3. The sizes of the final passage texts are summed; while the sum is over the budget (joining
   two chunks can cost a token), the last chosen chunk is dropped as `budget`. So the budget
   holds exactly: the passages' texts together never measure more than it. `byte_cap` bounds
   the texts' UTF-8 bytes the same way (a token budget must still fit the response limit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

Reason = Literal["budget", "per_note_limit", "duplicate"]
SEPARATOR = "\n\n"
_MAX_OVERLAP = 2000  # characters compared when two neighbouring chunks are merged


class Measure(Protocol):
    def size(self, text: str) -> int:
        """The text's size in the budget's unit."""
        ...

    def cut(self, text: str, size: int) -> str:
        """The longest head of `text` (ending between words) that measures at most `size`."""
        ...


@dataclass(frozen=True, slots=True)
class Candidate:
    note_id: int
    path: str
    title: str
    note_rank: int  # 0-based rank of the note for the query
    chunk_id: int
    position: int  # the chunk's place in its note
    heading: str | None
    text: str
    priority: float


@dataclass
class Passage:
    path: str
    title: str
    note_rank: int
    heading: str | None
    positions: list[int]
    text: str
    score: float  # the best priority among its chunks
    truncated: bool = False
    size: int = 0


class LeftOut:
    """A candidate left out, and why. Its `size` is measured when first read: a caller shows the
    first few of them (context_for_query: 25), and measuring a text in tokens is most of packing's
    cost while the word counts are not remembered yet (the first calls after a start)."""

    __slots__ = ("_measure", "_size", "_text", "heading", "path", "position", "reason")

    def __init__(
        self,
        path: str,
        heading: str | None,
        position: int,
        reason: Reason,
        text: str,
        measure: Measure,
        size: int | None = None,
    ) -> None:
        self.path, self.heading, self.position, self.reason = path, heading, position, reason
        self._text, self._measure, self._size = text, measure, size

    @property
    def size(self) -> int:
        """The left-out text's size in the budget's unit."""
        if self._size is None:
            self._size = self._measure.size(self._text)
        return self._size


@dataclass
class Packed:
    passages: list[Passage]
    left_out: list[LeftOut] = field(default_factory=list)
    used: int = 0


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def join(head: str, tail: str) -> str:
    """`head` and `tail` as one text, a part repeated at the end of one and the start of the other
    (overlapping windows) kept once."""
    window = head[-_MAX_OVERLAP:]
    for size in range(min(len(window), len(tail)), 19, -1):
        if window.endswith(tail[:size]):
            return head + tail[size:]
    return head + SEPARATOR + tail


@dataclass(slots=True)
class _Chosen:
    cand: Candidate
    text: str
    truncated: bool


def _assemble(chosen: list[_Chosen], measure: Measure) -> list[Passage]:
    by_note: dict[int, list[_Chosen]] = {}
    for c in chosen:
        by_note.setdefault(c.cand.note_id, []).append(c)
    out: list[Passage] = []
    for group in sorted(by_note.values(), key=lambda g: g[0].cand.note_rank):
        group.sort(key=lambda c: c.cand.position)
        current: Passage | None = None
        for c in group:
            adjacent = current is not None and not current.truncated and current.positions[-1] + 1 == c.cand.position
            if current is not None and adjacent:
                current.text = join(current.text, c.text)
                current.positions.append(c.cand.position)
                current.score = max(current.score, c.cand.priority)
                current.truncated = c.truncated
                continue
            current = Passage(
                c.cand.path,
                c.cand.title,
                c.cand.note_rank,
                c.cand.heading,
                [c.cand.position],
                c.text,
                c.cand.priority,
                c.truncated,
            )
            out.append(current)
    for p in out:
        p.size = measure.size(p.text)
    return out


def _bytes(passages: list[Passage]) -> int:
    return sum(len(p.text.encode()) for p in passages)


def pack(
    candidates: list[Candidate],
    measure: Measure,
    budget: int,
    *,
    max_per_note: int,
    min_piece: int,
    byte_cap: int | None = None,
) -> Packed:
    """The passages of `candidates` that fit `budget` (see the module doc) and, when given,
    `byte_cap` UTF-8 bytes of text in all."""
    cap = byte_cap if byte_cap is not None else 1 << 62
    held = 0
    order = sorted(candidates, key=lambda c: (-c.priority, c.note_rank, c.position))
    chosen: list[_Chosen] = []
    left: list[LeftOut] = []
    seen: set[str] = set()
    per_note: dict[int, int] = {}
    used = 0
    full = False
    for c in order:
        size: int | None = None  # measured only where the budget asks (or a left-out entry is read)
        key = _key(c.text)
        reason: Reason | None = None
        if key in seen:
            reason = "duplicate"
        elif per_note.get(c.note_id, 0) >= max_per_note:
            reason = "per_note_limit"
        elif held + len(c.text.encode()) > cap:
            reason = "budget"
            full = True
        elif full or used + (size := measure.size(c.text)) > budget:
            reason = "budget"
            rest = budget - used
            if not full and rest >= min_piece:
                head = measure.cut(c.text, rest)
                if head.strip() and held + len(head.encode()) <= cap:
                    chosen.append(_Chosen(c, head, True))
                    seen.add(key)
                    per_note[c.note_id] = per_note.get(c.note_id, 0) + 1
                    used += measure.size(head)
                    full = True
                    continue
        if reason is not None:
            left.append(LeftOut(c.path, c.heading, c.position, reason, c.text, measure, size))
            continue
        assert size is not None  # measured by the budget's test above
        chosen.append(_Chosen(c, c.text, False))
        seen.add(key)
        per_note[c.note_id] = per_note.get(c.note_id, 0) + 1
        used += size
        held += len(c.text.encode())
    passages = _assemble(chosen, measure)
    while passages and (sum(p.size for p in passages) > budget or _bytes(passages) > cap):
        dropped = chosen.pop()
        left.append(
            LeftOut(dropped.cand.path, dropped.cand.heading, dropped.cand.position, "budget", dropped.text, measure)
        )
        passages = _assemble(chosen, measure)
    return Packed(passages, left, sum(p.size for p in passages))
