"""The note-address resolver (`service.graph.address`): parsing, every rule and its precedence,
ambiguity, the read decision, suggestions."""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable

import pytest

from service.graph import address
from service.graph.address import MAX_SUGGESTIONS, NoteName, parse_address, resolve_address, suggestions
from service.graph.linkpath import base_name, strip_md

NOTES = [
    NoteName("Launch plan.md"),
    NoteName("Projects/Plan.md", ("Roadmap",)),
    NoteName("Archive/Plan.md"),
    NoteName("Projects/Notes/Idea.md", ("Spark", "idea-1")),
    NoteName("Home/Index.md", ("Home",)),
    NoteName("Daily/2024-01-01.md"),
    NoteName("Case/Readme.md"),
    NoteName("Case/README.md"),
    NoteName("Other/readme.md"),
    NoteName("Secret/Diary.md", ("Journal",)),
    NoteName("Deep/A/Topic.md"),
    NoteName("Deep/B/Topic.md"),
]


def everything(path: str) -> bool:
    return True


def no_secret(path: str) -> bool:
    return not path.startswith("Secret/")


def resolved(target: str, readable=everything) -> str | None:  # type: ignore[no-untyped-def]
    return resolve_address(target, NOTES, readable).path


@pytest.mark.parametrize(
    ("raw", "target", "subpath", "display"),
    [
        ("Launch plan", "Launch plan", None, None),
        ("  [[Launch plan]] ", "Launch plan", None, None),
        ("![[Launch plan]]", "Launch plan", None, None),
        ("[[Plan#Goals|the goals]]", "Plan", "Goals", "the goals"),
        ("Plan#Goals#Details", "Plan", "Goals#Details", None),
        ("Plan#^goal-1", "Plan", "^goal-1", None),
        ("[[Plan\\|shown]]", "Plan", None, "shown"),
        ("[[/Projects/Plan]]", "Projects/Plan", None, None),
        ("Plan#", "Plan", None, None),
    ],
)
def test_parse_address_splits_a_wikilink(raw: str, target: str, subpath: str | None, display: str | None) -> None:
    addr = parse_address(raw)
    assert (addr.target, addr.subpath, addr.display) == (target, subpath, display)


def test_sections_of_an_address() -> None:
    assert parse_address("Plan#Goals#Details").heading == ["Goals", "Details"]
    assert parse_address("Plan#Goals").block is None
    assert parse_address("Plan#^goal-1").block == "goal-1" and parse_address("Plan#^goal-1").heading is None
    assert parse_address("Plan").heading is None


def test_a_bare_slash_path_stays_absolute_outside_brackets() -> None:
    """'/etc/passwd' must still reach the path check (and fail there), never be read from the root."""
    assert parse_address("/etc/passwd").target == "/etc/passwd"


def test_a_bare_name_finds_the_note_in_any_folder() -> None:
    assert resolved("Idea") == "Projects/Notes/Idea.md"
    assert resolved("Idea.md") == "Projects/Notes/Idea.md"
    assert resolved("2024-01-01") == "Daily/2024-01-01.md"


def test_a_partial_path_is_a_path_suffix() -> None:
    assert resolved("Notes/Idea") == "Projects/Notes/Idea.md"
    assert resolved("A/Topic") == "Deep/A/Topic.md"
    assert resolved("otes/Idea") is None  # a suffix is whole path segments


def test_letter_case_is_ignored_when_the_match_is_unique() -> None:
    assert resolved("launch PLAN") == "Launch plan.md"
    assert resolved("projects/notes/idea") == "Projects/Notes/Idea.md"


def test_the_exact_letter_case_breaks_a_tie_else_it_is_ambiguous() -> None:
    assert resolved("Readme") == "Case/Readme.md"
    assert resolved("README") == "Case/README.md"
    found = resolve_address("readMe", NOTES, everything)
    assert found.path is None and found.candidates == ("Case/README.md", "Case/Readme.md", "Other/readme.md")


def test_several_notes_of_one_name_are_ambiguous_with_every_candidate() -> None:
    found = resolve_address("Plan", NOTES, everything)
    assert found.path is None and found.rule == "name"
    assert found.candidates == ("Archive/Plan.md", "Projects/Plan.md") and found.total == 2
    topic = resolve_address("Topic", NOTES, everything)
    assert topic.candidates == ("Deep/A/Topic.md", "Deep/B/Topic.md")


def test_the_vault_path_comes_before_a_name_match() -> None:
    notes = [NoteName("Plan.md"), NoteName("Projects/Plan.md"), NoteName("X/Projects/Plan.md")]
    assert resolve_address("Plan", notes, everything).path == "Plan.md"
    assert resolve_address("projects/plan", notes, everything).path == "Projects/Plan.md"
    assert resolve_address("projects/plan", notes, everything).rule == "path"


def test_an_alias_names_its_note_but_a_file_name_comes_first() -> None:
    assert resolved("Home") == "Home/Index.md"
    assert resolved("spark") == "Projects/Notes/Idea.md"
    assert resolve_address("Roadmap", NOTES, everything).rule == "alias"
    notes = [NoteName("Home.md"), NoteName("Home/Index.md", ("Home",))]
    assert resolve_address("Home", notes, everything).path == "Home.md"
    shared = [NoteName("A.md", ("Hub",)), NoteName("B.md", ("hub",))]
    assert resolve_address("Hub", shared, everything).path == "A.md"  # exact case
    assert resolve_address("HUB", shared, everything).candidates == ("A.md", "B.md")


def test_an_alias_may_hold_a_slash_and_comes_after_every_path_rule() -> None:
    notes = [NoteName("Links/Internal links.md", ("How to/Internal link",)), NoteName("How to/Internal link.md")]
    assert resolve_address("How to/Internal link", notes, everything).path == "How to/Internal link.md"
    assert resolve_address("how to/internal link", notes[:1], everything).path == "Links/Internal links.md"
    assert resolved("Home/Roadmap") is None


def test_unreadable_notes_never_match_and_never_make_a_name_ambiguous() -> None:
    assert resolved("Diary", no_secret) is None
    assert resolved("Journal", no_secret) is None
    notes = [NoteName("Secret/Plan.md"), NoteName("Open/Plan.md")]
    found = resolve_address("Plan", notes, no_secret)
    assert found.path == "Open/Plan.md" and found.candidates == ()


def test_nothing_fits() -> None:
    assert resolve_address("Nope", NOTES, everything).total == 0
    assert resolve_address("", NOTES, everything).total == 0


def test_suggestions_are_the_closest_readable_names() -> None:
    close = suggestions("Lanch plan", NOTES, everything)
    assert close[0] == "Launch plan.md"
    assert suggestions("Idae", NOTES, everything)[0] == "Projects/Notes/Idea.md"
    assert suggestions("Diary", NOTES, no_secret) == []
    assert "Secret/Diary.md" in suggestions("Diary", NOTES, everything)
    assert suggestions("Jornal", NOTES, everything) == ["Secret/Diary.md"]  # an alias counts
    assert suggestions("zzzzzz", NOTES, everything) == []


def test_at_most_five_suggestions() -> None:
    many = [NoteName(f"Meeting {i}.md") for i in range(20)]
    assert len(suggestions("Meeting", many, everything)) == MAX_SUGGESTIONS


def _scored_name_by_name(target: str, notes: list[NoteName], readable: Callable[[str], bool]) -> list[str]:
    """`suggestions` as it was before it bounded scores (every note scored with difflib): the oracle."""
    wanted = strip_md(base_name(target.strip().strip("/"))).lower()
    if not wanted:
        return []
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(wanted)
    scored: list[tuple[float, str]] = []
    for note in notes:
        best = 0.0
        for name in (strip_md(base_name(note.path)), *note.aliases):
            key = name.lower()
            contains = len(key) >= 3 and (wanted in key or key in wanted)
            matcher.set_seq1(key)
            if not contains and (matcher.real_quick_ratio() < 0.6 or matcher.quick_ratio() < 0.6):
                continue
            score = matcher.ratio()
            if score >= 0.6 or contains:
                best = max(best, score + (0.25 if contains else 0.0))
        if best:
            scored.append((best, note.path))
    scored.sort(key=lambda s: (-s[0], s[1].count("/"), s[1]))
    out: list[str] = []
    for _, path in scored:
        if readable(path):
            out.append(path)
            if len(out) == MAX_SUGGESTIONS:
                break
    return out


_WORDS = [
    "plan",
    "Plan",
    "meeting",
    "notes",
    "Ab",
    "abc",
    "ba",
    "x",
    "2024-01-01",
    "Café",
    "ΑΣ",
    "İs",
    "straße",
    "日記",
]


def _random_name(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 3)))


def _random_vault(rng: random.Random, size: int) -> list[NoteName]:
    paths = set()
    while len(paths) < size:
        folder = "/".join(rng.choice(["A", "b", "Deep/er", "Σ"]) for _ in range(rng.randint(0, 2)))
        paths.add(f"{folder}/{_random_name(rng)}.md".lstrip("/"))
    return [NoteName(p, tuple(_random_name(rng) for _ in range(rng.choice([0, 0, 0, 1, 2])))) for p in sorted(paths)]


class _Readable:
    """A `readable` that hides some notes and records what it was asked."""

    def __init__(self, hidden: set[str]) -> None:
        self.hidden = hidden
        self.asked: list[str] = []

    def __call__(self, path: str) -> bool:
        self.asked.append(path)
        return path not in self.hidden


@pytest.mark.parametrize("seed", range(40))
def test_bounded_suggestions_equal_scoring_every_note(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounded search answers as scoring every note did, asking `readable` about the same
    notes in the same order: names from few words (many ties and containments), aliases, non-Latin
    letters (a final sigma, a dotted I that lowers to two characters), hidden notes; tiny count
    tables force the bounds' chunking; targets over 64 characters skip the LCS bound."""
    rng = random.Random(seed)
    notes = _random_vault(rng, rng.randint(1, 300))
    hidden = {n.path for n in notes if rng.random() < 0.3}
    monkeypatch.setattr(address, "_CELLS", rng.choice([1, 7, 1 << 21]))
    monkeypatch.setattr(address, "_LCS_LONGEST", rng.choice([4, 256]))  # some names keep the loose bound
    for _ in range(15):
        target = rng.choice(
            [
                _random_name(rng),
                rng.choice(notes).path,
                rng.choice(_WORDS)[: rng.randint(1, 4)],
                "Σ/" + _random_name(rng),
                " ".join(_random_name(rng) for _ in range(9)),
            ]
        )
        old = _Readable(hidden)
        expected = _scored_name_by_name(target, notes, old)
        for bound_from in (0, 10_000):  # the bounded search, and the plain loop of small vaults
            monkeypatch.setattr(address, "_BOUND_FROM", bound_from)
            new = _Readable(hidden)
            assert suggestions(target, notes, new) == expected, target
            assert new.asked == old.asked, target


def test_a_large_vault_asks_readable_about_few_notes() -> None:
    """At 3,000 notes (the bounded search), `readable` is asked about the order's head only."""
    notes = [NoteName(f"Folder {i % 7}/Meeting {i}.md", ("Sync",) if i % 5 else ()) for i in range(3000)]
    asked = _Readable({"Folder 5/Meeting 12.md"})
    close = suggestions("Meeting 12", notes, asked)
    assert close == _scored_name_by_name("Meeting 12", notes, _Readable(asked.hidden))
    assert len(close) == MAX_SUGGESTIONS and len(asked.asked) == MAX_SUGGESTIONS + 1  # one hidden


def _lcs_by_table(a: str, b: str) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal, row[0] = 0, 0
        for j, y in enumerate(b, 1):
            diagonal, row[j] = row[j], diagonal + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def test_the_bit_parallel_lcs_is_the_lcs() -> None:
    """The bound's LCS, all names at once, equals the textbook table's, name by name."""
    import numpy as np

    rng = random.Random(7)
    for _ in range(30):
        wanted = "".join(rng.choice("abcΣé ") for _ in range(rng.randint(1, 64)))
        keys = ["".join(rng.choice("abcdΣ ") for _ in range(rng.randint(0, 80))) for _ in range(40)]
        chars = sorted(set(wanted))
        lut = {c: i for i, c in enumerate(chars)}
        slots = np.array([lut.get(c, -1) for c in "".join(keys)], dtype=np.int32)
        lens = np.array([len(k) for k in keys], dtype=np.int64)
        which = np.array([i for i in range(len(keys)) if rng.random() < 0.8], dtype=np.intp)
        got = address._lcs(wanted, chars, slots, lens, which).tolist()
        assert got == [_lcs_by_table(keys[i], wanted) for i in which.tolist()]
