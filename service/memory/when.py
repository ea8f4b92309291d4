"""The days observations are about and questions name, read leniently.

An observation's `date` is free text as the agent gave it ("2023-05-08", "1:56 pm on 8 May,
2023", "May 8, 2023"); `day_of` reads the day it names, if any. A question names days and
spans ("on October 13, 2023", "in July 2023", "in 2023"); `spans` finds them, and `months` the
months named without a year ("in June": June of any year), so the recall
index (`service.memory.recall`) can favour observations about those days and take the date's
words out of the words it matches; `span_of` reads the bounds `search_memory` is given (`since`, `until`).
Nothing here guesses a year that is not written.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = r"(?P<{}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{}>(?:19|20)\d\d)"

_PATTERNS = (
    # 2023-05-08 (also with a time after it)
    re.compile(r"\b" + _YEAR.format("y") + r"-(?P<m>[01]\d)-(?P<d>[0-3]\d)(?!\d)"),
    # 8 May, 2023 / 8th of May 2023
    re.compile(
        r"\b" + _DAY.format("d") + r"(?: of)? " + _MONTH.format("mn") + r",? " + _YEAR.format("y") + r"\b", re.I
    ),
    # May 8, 2023 / May 8th 2023
    re.compile(r"\b" + _MONTH.format("mn") + r" " + _DAY.format("d") + r",? " + _YEAR.format("y") + r"\b", re.I),
    # May 2023 / May, 2023 (a month)
    re.compile(r"\b" + _MONTH.format("mn") + r",? " + _YEAR.format("y") + r"\b", re.I),
    # in 2023 (a year; a bare number elsewhere is not taken for one)
    re.compile(r"\b(?:in|during|of|since|throughout) " + _YEAR.format("y") + r"\b", re.I),
)

# in June / during July: a month the question names without a year (one of every year)
_BARE_MONTH = re.compile(r"\b(?:in|during|throughout) " + _MONTH.format("mn") + r"(?!\w)", re.I)

_ISO_MONTH = re.compile(r"\s*" + _YEAR.format("y") + r"-(?P<m>[01]\d)\s*")
_ISO_YEAR = re.compile(r"\s*" + _YEAR.format("y") + r"\s*")

Span = tuple[int, int]  # first and last day, as date ordinals


def _span(m: re.Match[str]) -> Span | None:
    got = m.groupdict()
    year = int(got["y"])
    month = int(got["m"]) if got.get("m") else _MONTHS.get((got.get("mn") or "").lower().rstrip("."), 0)
    try:
        if got.get("d"):
            day = date(year, month, int(got["d"])).toordinal()
            return day, day
        if month:
            last = calendar.monthrange(year, month)[1]
            return date(year, month, 1).toordinal(), date(year, month, last).toordinal()
        return date(year, 1, 1).toordinal(), date(year, 12, 31).toordinal()
    except ValueError:  # 31 February: no day
        return None


def spans(text: str) -> tuple[list[Span], str]:
    """The days and spans `text` names, and `text` without the words that named them."""
    found: list[Span] = []
    rest = text
    for pattern in _PATTERNS:
        for m in list(pattern.finditer(rest)):
            span = _span(m)
            if span is not None:
                found.append(span)
        rest = pattern.sub(" ", rest)
    return found, rest


def months(text: str) -> tuple[list[int], str]:
    """The months `text` names without a year ("in June", "during July"; run after `spans`, which
    takes "in June 2023"), and `text` without them: June of any year, as no year is guessed."""
    found = [_MONTHS[m.group("mn").lower().rstrip(".")] for m in _BARE_MONTH.finditer(text)]
    return found, _BARE_MONTH.sub(" ", text) if found else text


def month_of(day: int) -> int:
    """The month (1-12) of a date ordinal from `day_of`; 0 for none."""
    return date.fromordinal(day).month if day > 0 else 0


def day_of(text: str) -> int | None:
    """The day `text` names (a date ordinal), or None: the first full date in it."""
    for pattern in _PATTERNS[:3]:
        m = pattern.search(text)
        if m:
            span = _span(m)
            if span is not None:
                return span[0]
    return None


def span_of(text: str) -> Span | None:
    """The day or span a bound such as `since` names ("2023", "2023-05", "2023-05-08", "8 May,
    2023"), or None."""
    for pattern in (_ISO_YEAR, _ISO_MONTH):
        m = pattern.fullmatch(text)
        if m:
            return _span(m)
    found, _ = spans(text)
    return found[0] if found else None
