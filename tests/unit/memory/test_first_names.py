"""A person's first name as their name in a search_memory query (`words.first_names`,
`words.names_in`): only a person's, only one person's, never a thing's, only capitalised and not
as the query's first word unless a possessive or a comma follows."""

from __future__ import annotations

from service.memory.words import first_names, names_in


def test_a_first_name_names_only_one_person_and_no_thing() -> None:
    named = [
        ("M/Steph Ango.md", "Steph Ango", "person"),
        ("M/Sam Lee.md", "Sam Lee", "person"),
        ("M/Sam Ortiz.md", "Sam Ortiz", "Person"),
        ("M/New York.md", "New York", "place"),
        ("M/Will Turner.md", "Will Turner", "person"),
        ("M/Al Bo.md", "Al Bo", "person"),  # a two-letter first name: too short to be sure
    ]
    full = {n.lower(): {rel} for rel, n, _ in named}
    first = first_names(named, full)
    assert first == {"steph": {"M/Steph Ango.md"}}  # 'will' is a stop word, never a term nor a name
    assert names_in("where does Steph live", full, first)[0] == {"M/Steph Ango.md"}
    assert names_in("where does steph live", full, first)[0] == set()  # not capitalised: a word
    assert names_in("Steph's city", full, first)[0] == {"M/Steph Ango.md"}
    assert names_in("Will it rain where Sam lives", full, first)[0] == set()
    assert names_in("New plans for Sam", full, first)[0] == set()
