"""Where a long note's snippet window goes (`windows.best_place`): each probe's later starts are
searched from its first one, and a search stops at its last wanted start; the places chosen must
be those of the search that read every note from its beginning to its end (the oracle here, as
the module had it), for words in any case, non-ASCII forms, words inside other words and notes
with more starts than are looked at."""

from __future__ import annotations

import random
from collections.abc import Sequence

from service.retrieval import windows


def old_starts(low: bytes, text: bytes, probe: tuple[str, ...], limit: int) -> list[int]:
    pairs: list[tuple[bytes, bytes]] = []
    for form in probe:
        if form.isascii():
            pairs.append((low, form.encode()))
        else:
            cases = dict.fromkeys((form, form[:1].upper() + form[1:], form.upper()))
            pairs += [(text, case.encode()) for case in cases]
    found: list[int] = []
    for hay, needle in pairs:
        at = hay.find(needle)
        seen = 0
        while at >= 0 and seen < limit:
            if at == 0 or not (hay[at - 1] >= 0x80 or chr(hay[at - 1]).isalnum()):
                found.append(at)
                seen += 1
            at = hay.find(needle, at + 1)
    found.sort()
    return found[:limit]


def old_best_place(text: bytes, probes: Sequence[tuple[str, ...]]) -> int | None:
    low = text.lower()
    firsts = [old_starts(low, text, p, 1) for p in probes]
    present = [f[0] for f in firsts if f]
    if not present:
        return None
    if len(present) == 1 or (len(present) == len(probes) and max(present) - min(present) < windows.SPAN):
        return min(present)
    places = sorted(
        (at, k) for k, p in enumerate(probes) if firsts[k] for at in old_starts(low, text, p, windows.MAX_PLACES)
    )
    best, best_count = places[0][0], 0
    j = 0
    counts: dict[int, int] = {}
    for at, k in places:
        while j < len(places) and places[j][0] < at + windows.SPAN:
            counts[places[j][1]] = counts.get(places[j][1], 0) + 1
            j += 1
        if len(counts) > best_count:
            best, best_count = at, len(counts)
        counts[k] -= 1
        if not counts[k]:
            del counts[k]
    return best


WORDS = ["orbit", "Orbital", "ORBIT", "suborbit", "zürich", "Zürich", "ZÜRICH", "kelp", "kelpie", "mankelp", "plain"]
FILLER = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
PROBES = [
    [("orbi",)],
    [("orbi",), ("kel",)],
    [("orbi",), ("zurich", "züric")],
    [("kel",), ("absent",)],
    [("orbi",), ("kel",), ("zurich", "züric")],
]


def note(rng: random.Random, words: int, density: float) -> bytes:
    out = []
    for i in range(words):
        out.append(rng.choice(WORDS) if rng.random() < density else rng.choice(FILLER))
        if i % 13 == 12:
            out[-1] += ".\n"
    return " ".join(out).encode()


def test_the_window_goes_where_reading_each_note_whole_put_it() -> None:
    rng = random.Random(11)
    for case in range(300):
        density = rng.choice([0.0005, 0.005, 0.05, 0.3])  # from one start per note to more than are looked at
        body = note(rng, rng.randint(50, 6000), density)
        for probes in PROBES:
            assert windows.best_place(body, probes) == old_best_place(body, probes), (case, probes, density)


def test_starts_from_an_offset_are_the_starts_after_it() -> None:
    rng = random.Random(5)
    body = note(rng, 3000, 0.05)
    low = body.lower()
    for probe in (("orbi",), ("kel",), ("zurich", "züric")):
        every = old_starts(low, body, probe, 10_000)
        for start in (0, *every[:5]):
            for limit in (1, 3, 64):
                expected = [at for at in every if at >= start][:limit]
                assert windows._starts(low, body, probe, limit, start) == expected, (probe, start, limit)


def placed(rng: random.Random, size: int, words: list[tuple[str, int]]) -> bytes:
    """Filler text of about `size` bytes with each (word, count) put at random word boundaries."""
    out = [rng.choice(FILLER) for _ in range(size // 6)]
    for word, count in words:
        for _ in range(count):
            out.insert(rng.randrange(len(out) + 1), word)
    return " ".join(out).encode()


def test_two_words_far_apart_or_meeting_near_the_span_go_where_reading_each_note_whole_put_them() -> None:
    """Two words are looked for near each other's starts only; the sparse notes here (a few starts
    each, far apart) take that path, and the pairs put a few bytes either side of SPAN apart, or
    beyond a word's 64th start, check where it must give way to reading every start."""
    rng = random.Random(23)
    pairs = [[("orbi",), ("kel",)], [("kel",), ("orbi",)], [("orbi",), ("zurich", "züric")]]
    for case in range(400):
        words = [(rng.choice(["orbit", "Orbital", "kelp", "mankelp"]), rng.randint(1, 4))]
        words.append((rng.choice(["kelpie", "ORBIT", "Zürich", "zürich"]), rng.choice([1, 2, 5, 80])))
        body = placed(rng, rng.randint(2_000, 40_000), words)
        if case % 2:  # a meeting about SPAN apart, somewhere after both first starts
            gap = rng.choice(FILLER) * ((windows.SPAN + rng.randint(-12, 12)) // 5)
            at = rng.randrange(len(body) // 2, len(body))
            cut = body.rfind(b" ", 0, at) + 1
            body = body[:cut] + f"orbit {gap} kelp zürich ".encode() + body[cut:]
        for probes in pairs:
            assert windows.best_place(body, probes) == old_best_place(body, probes), (case, probes)
