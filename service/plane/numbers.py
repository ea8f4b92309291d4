"""Numbers written as words, read as the numbers they are, for the comparison of facts: "Owns two
cars" states what "Owns 2 cars" does (a duplicate), "Owns three cars" another count (never a
duplicate; a contradiction, `service.plane.contradictions`).

Read: zero to twenty, the tens (thirty … ninety), a ten and a unit ("twenty-one", "forty two"),
"a dozen" (12) and "<unit> dozen" ("two dozen": 24). "one" after a word that makes it a pronoun
("no one", "the one", "this one", "each one"…) stays a word. Other numbers (hundreds, ordinals,
"a couple") stay words.
"""

from __future__ import annotations

import re

_UNITS = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"),
    *("thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"),
]
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
VALUES: dict[str, int] = {word: n for n, word in enumerate(_UNITS)} | _TENS
_TEN = "|".join(_TENS)
_UNIT = "|".join(_UNITS[1:10])
_PRONOUN = r"(?<!\bno )(?<!\bthe )(?<!\bthis )(?<!\bthat )(?<!\bwhich )(?<!\beach )(?<!\bevery )(?<!\bany )"
_WORD = re.compile(
    rf"\b(?:(?P<ten>{_TEN})[- ](?P<unit>{_UNIT})\b"
    rf"|(?:(?P<times>{_UNIT}|{_UNITS[10]}|{_UNITS[11]}) |an? )?dozen\b"
    rf"|{_PRONOUN}(?P<one>{'|'.join(VALUES)})\b)",
    re.IGNORECASE,
)


def _digits(found: re.Match[str]) -> str:
    if found.group("ten"):
        return str(VALUES[found.group("ten").lower()] + VALUES[found.group("unit").lower()])
    if found.group("one"):
        return str(VALUES[found.group("one").lower()])
    times = found.group("times")
    return str(12 * (VALUES[times.lower()] if times else 1))


def as_digits(text: str) -> str:
    """`text` with its number words written in digits ("owns two cars" -> "owns 2 cars")."""
    return _WORD.sub(_digits, text)
