"""The duplicates job's guard: statements that differ in a number, a date, a name or a negation,
or whose words trade sides around a word that says which way, are never the same fact; weekday
and month names are dates, not names."""

from __future__ import annotations

import pytest

from service.plane.duplicates import differs_in_fact


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ran the Berlin marathon in 2021", "Ran the Berlin marathon in 2023"),
        ("Met Alice at the spring conference", "Met Bruno at the spring conference"),
        ("Likes pizza for dinner", "Does not like pizza for dinner"),
        ("Has 3 cats at home", "Has 4 cats at home"),
        ("Calls her mother on Mondays", "Calls her mother on Fridays"),
        ("Prefers email over phone", "Prefers phone over email"),
        ("Likes dogs more than cats", "Likes cats more than dogs"),
        ("Walks from the station to the office", "Walks from the office to the station"),
        ("Worked at Acme", "Works at Acme"),
        ("Lives in Paris", "Lived in Paris"),
        ("Is based in Oslo", "Was based in Oslo"),
    ],
)
def test_a_hard_negative_differs_in_fact(a: str, b: str) -> None:
    assert differs_in_fact(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Plays the cello every weekend", "Practises cello on Saturdays and Sundays"),
        ("Likes green tea in the morning", "likes green tea in the morning."),
        ("She plays the cello in an amateur orchestra", "Plays the cello in the amateur orchestra"),
        ("Prefers tea over coffee in the morning", "In the morning prefers tea over coffee"),
        ("Worked at Acme for years", "worked at Acme for years."),
        ("Has lived in Paris since 2010", "Has lived in Paris since 2010 with her family"),
    ],
)
def test_a_paraphrase_does_not(a: str, b: str) -> None:
    assert not differs_in_fact(a, b)
