"""passages.pack: the budget holds exactly, duplicates and per-note limits are left out with
their reason, neighbouring chunks merge (overlap kept once), reading order is rank then note order."""

from __future__ import annotations

import random

from service.retrieval.passages import Candidate, LeftOut, join, pack


class Words:
    """Sizes in words (a stand-in tokenizer)."""

    def size(self, text: str) -> int:
        return len(text.split())

    def cut(self, text: str, size: int) -> str:
        return " ".join(text.split()[:size])


def cand(note: int, position: int, text: str, priority: float, rank: int | None = None) -> Candidate:
    return Candidate(
        note,
        f"N{note}.md",
        f"N{note}",
        note if rank is None else rank,
        note * 100 + position,
        position,
        f"H{position}",
        text,
        priority,
    )


def test_the_budget_is_never_exceeded_and_is_used_when_it_can_be() -> None:
    rng = random.Random(7)
    words = [f"w{i}" for i in range(500)]
    for _ in range(300):
        cands = [
            cand(n, p, " ".join(rng.choices(words, k=rng.randint(1, 40))), rng.random())
            for n in range(rng.randint(1, 8))
            for p in range(rng.randint(1, 5))
        ]
        budget = rng.randint(1, 200)
        out = pack(cands, Words(), budget, max_per_note=rng.randint(1, 4), min_piece=5)
        assert out.used == sum(Words().size(p.text) for p in out.passages) <= budget
        assert all(p.size == Words().size(p.text) for p in out.passages)
        kept = sum(len(p.positions) for p in out.passages)
        assert kept + len(out.left_out) == len(cands)  # every candidate is either shown or accounted for
        assert all(lo.size == Words().size(lo_text(cands, lo)) for lo in out.left_out if lo.reason != "budget")


def lo_text(cands: list[Candidate], lo: LeftOut) -> str:
    (found,) = [c.text for c in cands if (c.path, c.position) == (lo.path, lo.position)]
    return found


class Counted(Words):
    def __init__(self) -> None:
        self.measured: list[str] = []

    def size(self, text: str) -> int:
        self.measured.append(text)
        return super().size(text)


def test_left_out_texts_are_measured_when_their_size_is_read() -> None:
    """Once the budget is spent, what is left out is measured only if its size is asked for (a
    caller shows the first few entries): the same sizes, fewer texts measured."""
    cands = [cand(n, 0, f"note {n} " + "word " * (n + 1), 10.0 - n) for n in range(8)]
    measure = Counted()
    out = pack(cands, measure, 10, max_per_note=1, min_piece=2)  # N0 and N1 fit, N2's head ends it
    assert [(p.path, p.truncated) for p in out.passages] == [("N0.md", False), ("N1.md", False), ("N2.md", True)]
    assert [lo.path for lo in out.left_out] == [f"N{n}.md" for n in range(3, 8)]
    assert not any(c.text in measure.measured for c in cands[3:])
    assert [lo.size for lo in out.left_out[-2:]] == [Words().size(c.text) for c in cands[-2:]]
    assert measure.measured[-2:] == [c.text for c in cands[-2:]]  # measured when read
    count = len(measure.measured)
    assert [lo.size for lo in out.left_out[-2:]] == [9, 10] and len(measure.measured) == count  # once
    assert not any(c.text in measure.measured for c in cands[3:6])  # never read: never measured


def test_duplicates_and_the_per_note_limit_are_left_out_with_their_reason() -> None:
    cands = [
        cand(0, 0, "alpha beta", 1.0),
        cand(0, 1, "gamma delta", 0.9),
        cand(0, 2, "epsilon", 0.8),
        cand(1, 0, "Alpha   BETA", 0.7),
        cand(2, 0, "zeta", 0.6),
    ]
    out = pack(cands, Words(), 100, max_per_note=2, min_piece=1)
    reasons = {(lo.path, lo.position): lo.reason for lo in out.left_out}
    assert reasons == {("N0.md", 2): "per_note_limit", ("N1.md", 0): "duplicate"}
    assert [(p.path, p.positions) for p in out.passages] == [("N0.md", [0, 1]), ("N2.md", [0])]
    assert out.passages[0].text == "alpha beta\n\ngamma delta"


def test_reading_order_is_note_rank_then_position_and_gaps_are_not_merged() -> None:
    cands = [cand(1, 3, "c", 1.0), cand(0, 0, "a", 0.5), cand(1, 1, "b", 0.9)]
    out = pack(cands, Words(), 100, max_per_note=5, min_piece=1)
    assert [(p.path, p.positions) for p in out.passages] == [("N0.md", [0]), ("N1.md", [1]), ("N1.md", [3])]


def test_the_last_candidate_that_does_not_fit_is_cut_to_fit() -> None:
    cands = [cand(0, 0, "one two three four", 1.0), cand(1, 0, "five six seven eight nine", 0.5)]
    out = pack(cands, Words(), 7, max_per_note=3, min_piece=2)
    assert out.used == 7 and out.passages[1].text == "five six seven" and out.passages[1].truncated
    out = pack(cands, Words(), 5, max_per_note=3, min_piece=2)  # one word left: below min_piece
    assert out.used == 4 and [lo.reason for lo in out.left_out] == ["budget"]


def test_overlapping_windows_are_joined_once() -> None:
    head = "the quick brown fox jumps over the lazy dog and runs"
    tail = "over the lazy dog and runs into the forest"
    assert join(head, tail) == "the quick brown fox jumps over the lazy dog and runs into the forest"
    assert join("short", "other") == "short\n\nother"


def test_a_byte_cap_holds_behind_a_word_budget() -> None:
    cands = [cand(n, 0, f"note{n} " + "word " * 19, 1.0 - n / 10) for n in range(5)]
    out = pack(cands, Words(), 1000, max_per_note=3, min_piece=5, byte_cap=250)
    assert sum(len(p.text.encode()) for p in out.passages) <= 250 and len(out.passages) == 2
    assert [lo.reason for lo in out.left_out] == ["budget"] * 3
