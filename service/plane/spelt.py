"""A statement as the duplicates job compares it (`spelt`): the same fact written another way
reads the same. Numbers in digits (`service.plane.numbers`), an ISO date in words, a unit's
abbreviation or other spelling as one word, "Saturdays and Sundays" as "weekend", a few verbs
that say the same of a person as one ("read law at" / "studied law at"). Only
for the comparison: what a finding shows and a plan deletes is the text as written.
"""

from __future__ import annotations

import re

from service.plane.numbers import as_digits

MONTH_NAMES = (
    *("january", "february", "march", "april", "may", "june", "july", "august", "september"),
    *("october", "november", "december"),
)
_ISO_DATE = re.compile(r"\b(\d{4})-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?\b(?!-\d)")
_UNIT_SPELT = {  # a unit as it may be written: abbreviated after a number, or spelt another way
    **dict.fromkeys(("km", "kms", "kilometer", "kilometers", "kilometre"), "kilometres"),
    **dict.fromkeys(("cm", "centimeter", "centimeters", "centimetre"), "centimetres"),
    **dict.fromkeys(("meter", "meters", "metre"), "metres"),
    **dict.fromkeys(("kg", "kgs", "kilogram"), "kilograms"),
    **dict.fromkeys(("l", "liter", "liters", "litre"), "litres"),
    **dict.fromkeys(("ml", "milliliter", "milliliters", "millilitre"), "millilitres"),
    **dict.fromkeys(("lb", "lbs", "pound"), "pounds"),
    **dict.fromkeys(("mi", "mile"), "miles"),
    **dict.fromkeys(("hr", "hrs", "hour"), "hours"),
    **dict.fromkeys(("min", "mins", "minute"), "minutes"),
}
_UNIT = re.compile(
    r"(?<=\d)\s*(km|kms|cm|kg|kgs|l|ml|lb|lbs|mi|hr|hrs|min|mins)\b|\b(kilomet(?:er|re)s?|centimet(?:er|re)s?"
    r"|met(?:er|re)s?|kilograms?|lit(?:er|re)s?|millilit(?:er|re)s?|pounds?|miles?|hours?|minutes?)\b",
    re.I,
)
DAYS_OF = {"weekend": ("saturday", "sunday"), "weekday": ("monday", "tuesday", "wednesday", "thursday", "friday")}
_WEEKEND = re.compile(r"\bsat(?:urday)?s?\s*(?:and|&|\+|,)\s*sun(?:day)?s?\b", re.I)
_WEEKDAYS = re.compile(r"\bmon(?:day)?s?\s*(?:to|through|thru|till|until|-|–)\s*fri(?:day)?s?\b", re.I)
# one verb for another where it says the same of a person (compared only, tense kept): "read law at
# Oxford" is "studied law at Oxford", "took in a dog" "adopted a dog", "resides in" "lives in", "is
# employed by" "works for"
_SAME_VERB = (
    (re.compile(r"\bread(?= [\w-]+ (?:at|in|under)\b)", re.I), "studied"),
    (re.compile(r"\b(?:took|taken) in\b", re.I), "adopted"),
    (re.compile(r"\btakes in\b", re.I), "adopts"),
    (re.compile(r"\btake in\b", re.I), "adopt"),
    (re.compile(r"\bresides in\b", re.I), "lives in"),
    (re.compile(r"\bresided in\b", re.I), "lived in"),
    (re.compile(r"\b(?:is|are) employed (?:by|at)\b", re.I), "works for"),
    (re.compile(r"\b(?:was|were) employed (?:by|at)\b", re.I), "worked for"),
)


def days_of(words: set[str]) -> frozenset[str]:
    """The days "weekend" and "weekdays" name, among a statement's lower-case words."""
    return frozenset(day for w in words if w.rstrip("s") in DAYS_OF for day in DAYS_OF[w.rstrip("s")])


def spelt(text: str) -> str:
    """A statement as it is compared: numbers in digits (`as_digits`), a date in ISO form in words
    ("2019-03" is "march 2019", "2019-03-05" "5 march 2019"), a unit's abbreviation or other
    spelling as one word ("5 km" is "5 kilometres", "meter" "metres"), and the days of the
    weekend and the weekdays named as such ("Saturdays and Sundays" is "weekend", "Monday to
    Friday" "weekdays"), and a verb that says the same of a person as another written as that one
    (`_SAME_VERB`: "read law at" is "studied law at", "took in a dog" "adopted a dog"); `days_of`
    reads the days back, so "every weekend" is not "on Saturdays"."""

    def date(m: re.Match[str]) -> str:
        month = MONTH_NAMES[int(m.group(2)) - 1]
        return f"{int(m.group(3))} {month} {m.group(1)}" if m.group(3) else f"{month} {m.group(1)}"

    def unit(m: re.Match[str]) -> str:
        found = (m.group(1) or m.group(2)).lower()
        return (" " if m.group(1) else "") + _UNIT_SPELT.get(found, found)

    text = _UNIT.sub(unit, _ISO_DATE.sub(date, as_digits(text)))
    for verb, same in _SAME_VERB:
        text = verb.sub(same, text)
    return _WEEKDAYS.sub("weekdays", _WEEKEND.sub("weekend", text))
