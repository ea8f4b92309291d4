"""service.plane.numbers.as_digits: only words that are a whole number by themselves become digits (H6 #4, #5),
numbers built with hundred / thousand / million included."""

from __future__ import annotations

import pytest

from service.plane.numbers import as_digits

READ = [
    ("Owns two cars", "Owns 2 cars"),
    ("Is thirty-four years old", "Is 34 years old"),
    ("Speaks forty two words", "Speaks 42 words"),
    ("Has a dozen eggs", "Has 12 eggs"),
    ("Has two dozen eggs", "Has 24 eggs"),
    ("Owns two cars and three bikes", "Owns 2 cars and 3 bikes"),
    ("Signed a two-year lease", "Signed a 2-year lease"),
    ("Owns two hundred books", "Owns 200 books"),
    ("Owns one thousand books", "Owns 1000 books"),
    ("Has a hundred and five pages", "Has 105 pages"),
    ("Walked three thousand two hundred steps", "Walked 3200 steps"),
    ("Paid twenty-five hundred dollars", "Paid 2500 dollars"),
    ("Counted two hundred and thirty-one votes", "Counted 231 votes"),
    ("Has a million and one ideas", "Has 1000001 ideas"),
    ("Earns five hundred thousand a year", "Earns 500000 a year"),
    ("Wrote a two hundred page book", "Wrote a 200 page book"),
    ("Walks 2,000 steps", "Walks 2000 steps"),
    ("Paid $1,250,000.50, then 3,000.", "Paid $1250000.50, then 3000."),
]
KEPT = [
    "Owns hundreds of books",
    "Owns two hundred hundred books",
    "Walked two thousand three thousand steps",
    "Was the hundredth guest",
    "Walked one and a half thousand steps",
    "Counted two hundred or three hundred votes",
    "Counted twenty thirty votes",
    "Counted two three votes",
    "Rooms 1,2 and 3",
    "Has 2,0001 items",
    "Built v1.2,000",
    "Has half a dozen eggs",
    "Has a half-dozen eggs",
    "Ate two-thirds of the pie",
    "Holds three quarters of the shares",
    "Ran one and a half miles",
    "Wakes at one o'clock",
    "Wakes at one o clock",
    "Buys a dozen or two eggs",
    "Reads one or two books",
    "Lived in the twenty-first century",
    "Read nineteen eighty-four",
    "Scored two point five",
    "no one came",
    "the second one",
    "help one another",
]


@pytest.mark.parametrize(("text", "digits"), READ)
def test_a_whole_number_in_words_is_written_in_digits(text: str, digits: str) -> None:
    assert as_digits(text) == digits


@pytest.mark.parametrize("text", KEPT)
def test_a_number_word_that_is_part_of_another_number_stays_words(text: str) -> None:
    assert as_digits(text) == text
