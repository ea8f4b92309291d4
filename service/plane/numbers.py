"""Numbers written as words, read as the numbers they are, for the comparison of facts: "Owns two
cars" states what "Owns 2 cars" does (a duplicate), "Owns three cars" another count (never a
duplicate; a contradiction, `service.plane.contradictions`).

Read: zero to twenty, the tens (thirty … ninety), a ten and a unit ("twenty-one", "forty two"),
"a dozen" (12) and "<unit> dozen" ("two dozen": 24). "one" after a word that makes it a pronoun
("no one", "the one", "this one", "each one"…) and in "one another" stays a word.

Only words that are a whole number by themselves become digits: a number word next to another
number word, a magnitude, a fraction or an ordinal ("two hundred", "half a dozen", "two-thirds",
"three quarters", "one and a half", "twenty-first", "nineteen eighty-four", "a dozen or two",
"one or two", "two point five"), or before "o'clock", stays words as a whole, so that it is never
read as another number ("two hundred" is not 2). Other numbers (hundreds, ordinals, "a couple")
stay words.
"""

from __future__ import annotations

import re

_UNITS = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"),
    *("thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"),
]
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
VALUES: dict[str, int] = {word: n for n, word in enumerate(_UNITS)} | _TENS
_DOZEN_TIMES = frozenset(_UNITS[1:13])  # "two dozen" … "twelve dozen"
_MAGNITUDES = ("dozens", "hundreds?", "thousands?", "millions?", "billions?", "trillions?", "score", "point")
_PARTS = (
    *("half", "halves", "thirds?", "quarters?", "fourths?", "fifths?", "sixths?", "sevenths?", "eighths?"),
    *("ninths?", "tenths?", "elevenths?", "twelfths?", "first", "second", r"\w+tieths?", "thirteenth", "fourteenth"),
    *("fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth"),
)
# A number-like word: the words that make up a number, and those next to which a number word is
# part of a larger (or smaller) number.
_NUMERIC = "|".join((*VALUES, "dozen", *_MAGNITUDES, *_PARTS))
_JOIN = r"(?:\s+(?:and|or|to|by)\s+(?:an?\s+)?|\s+an?\s+|[\s-]+)"
_RUN = re.compile(
    rf"\b(?:(?:an?)\s+)?(?:{_NUMERIC})\b(?:{_JOIN}(?:{_NUMERIC})\b)*"
    rf"(?P<clock>\s+o['’]?\s*clock\b)?",
    re.IGNORECASE,
)
_PRONOUN = re.compile(r"\b(?:no|the|this|that|which|each|every|any)\s+$", re.IGNORECASE)
_ANOTHER = re.compile(r"\s+another\b", re.IGNORECASE)
_ARTICLE = re.compile(r"an?\s+", re.IGNORECASE)
_SINGLE = re.compile(rf"^(?:{'|'.join(VALUES)})$", re.IGNORECASE)
_TEN_UNIT = re.compile(rf"^(?P<ten>{'|'.join(_TENS)})[- ](?P<unit>{'|'.join(_UNITS[1:10])})$", re.IGNORECASE)
_DOZEN = re.compile(r"^(?:an?\s+|(?P<times>\w+)\s+)?dozen$", re.IGNORECASE)


def _value(run: str) -> int | None:
    """The number a run of number-like words is when it is one whole number by itself, else None."""
    if _SINGLE.match(run):
        return VALUES[run.lower()]
    found = _TEN_UNIT.match(run)
    if found:
        return VALUES[found.group("ten").lower()] + VALUES[found.group("unit").lower()]
    found = _DOZEN.match(run)
    if found:
        times = (found.group("times") or "").lower()
        if not times:
            return 12
        return 12 * VALUES[times] if times in _DOZEN_TIMES else None
    return None


def _digits(found: re.Match[str]) -> str:
    whole, start = found.group(0), found.start()
    if found.group("clock"):
        return whole
    article = _ARTICLE.match(whole)
    if article and not _DOZEN.match(whole):  # "a two-year plan": the article is no part of the number
        start += article.end()
    value = _value(found.string[start : found.end()])
    if value is None:
        return whole
    number, text = found.string[start : found.end()], found.string
    if _SINGLE.match(number) and _PRONOUN.search(text, 0, start):
        return whole
    if number.lower() == "one" and _ANOTHER.match(text, found.end()):
        return whole
    return whole[: start - found.start()] + str(value)


def as_digits(text: str) -> str:
    """`text` with its number words written in digits ("owns two cars" -> "owns 2 cars")."""
    return _RUN.sub(_digits, text)
