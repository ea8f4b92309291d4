"""Numbers written as words, read as the numbers they are, for the comparison of facts: "Owns two
cars" states what "Owns 2 cars" does (a duplicate), "Owns three cars" another count (never a
duplicate; a contradiction, `service.plane.contradictions`).

Read: zero to twenty, the tens (thirty … ninety), a ten and a unit ("twenty-one", "forty two"),
"a dozen" (12) and "<unit> dozen" ("two dozen": 24), and whole numbers built with "hundred",
"thousand", "million" and "billion" ("two hundred": 200, "a hundred and five": 105, "three
thousand two hundred": 3200, "twenty-five hundred": 2500). "one" after a word that makes it a
pronoun ("no one", "the one", "this one", "each one"…) and in "one another" stays a word.

Only a run of number words that is one whole number by itself becomes digits: a run with a
fraction, an ordinal, a plural magnitude or a range in it ("half a dozen", "two-thirds", "three
quarters", "one and a half", "twenty-first", "hundreds of", "a dozen or two", "one or two", "two
point five"), two numbers side by side ("nineteen eighty-four", "two three"), or one before
"o'clock", stays words as a whole, so that it is never read as another number ("two hundred"
is never 2).
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
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_WORDS = re.compile(r"[^\s-]+")
_GROUPED = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?!\w|,\d)")  # "2,000", "1,250,000.5"; not "1,2"
_SCALE_FIRST = re.compile(r"(?:hundred|thousand|million|billion)\b", re.IGNORECASE)


def _cardinal(run: str) -> int | None:
    """A whole number written with "hundred" and the larger scales ("a hundred and five",
    "three thousand two hundred", "twenty-five hundred"), else None. Each scale comes once and
    below the one before it; "and" only after a scale and before the last part under a hundred."""
    words = [w.lower() for w in _WORDS.findall(run)]
    if not any(w == "hundred" or w in _SCALES for w in words):
        return None
    total, group, below, last = 0, 0, 0, "start"  # below: the group's part under a hundred so far
    scale_limit = 10**12
    for i, word in enumerate(words):
        if word in ("a", "an"):
            if i != 0 or len(words) < 2 or not (words[1] == "hundred" or words[1] in _SCALES):
                return None
            below, last = 1, "unit"
        elif word == "and":
            if last not in ("hundred", "scale") or i + 1 == len(words) or words[i + 1] not in VALUES:
                return None
            last = "and"
        elif word in _TENS:
            if last in ("unit", "ten"):
                return None
            below, last = below + _TENS[word], "ten"
        elif word in VALUES:
            if last == "unit" or (last == "ten" and VALUES[word] > 9) or VALUES[word] == 0:
                return None
            below, last = below + VALUES[word], "unit"
        elif word == "hundred":
            if last not in ("unit", "ten") or group:
                return None
            group, below, last = below * 100, 0, "hundred"
        elif word in _SCALES:
            size = group + below
            if last not in ("unit", "ten", "hundred") or not 0 < size < 1000 or _SCALES[word] >= scale_limit:
                return None
            total, group, below, last, scale_limit = total + size * _SCALES[word], 0, 0, "scale", _SCALES[word]
        else:
            return None
    return total + group + below if last != "and" else None


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
    return _cardinal(run)


def _digits(found: re.Match[str]) -> str:
    whole, start = found.group(0), found.start()
    if found.group("clock"):
        return whole
    article = _ARTICLE.match(whole)
    counted = _DOZEN.match(whole) or (article and _SCALE_FIRST.match(whole, article.end()))  # "a hundred": 100
    if article and not counted:  # "a two-year plan": the article is no part of the number
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
    """`text` with its number words written in digits ("owns two cars" -> "owns 2 cars") and its
    thousands separators dropped ("walks 2,000 steps" -> "walks 2000 steps")."""
    return _GROUPED.sub(lambda found: found.group(0).replace(",", ""), _RUN.sub(_digits, text))
