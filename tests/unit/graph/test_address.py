"""The note-address resolver (`service.graph.address`): parsing, every rule and its precedence,
ambiguity, the read decision, suggestions."""

from __future__ import annotations

import pytest

from service.graph.address import MAX_SUGGESTIONS, NoteName, parse_address, resolve_address, suggestions

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
