"""Dates as a Tasks query writes them, read into a span of days `(first, last)`, both inclusive.

A single day is a span of one day: `2026-11-30`, `today`, `tomorrow`, `yesterday`, a weekday
(`monday`: the closest Monday; `this|next|last monday`: the Monday of this, the next or the last
Sunday-to-Saturday week, as chrono-node reads them), `in two weeks`, `3 days ago`, `in 1 month`, a day in words
(`25th May 2023`, `May 25, 2023`, `14 October` and `May`: this year's, a month alone its 1st day). A range names
several days: two dates (`2026-11-01 2026-11-30`), `this|next|last week|month|quarter|year`
(weeks run Monday to Sunday, as the Tasks plugin's are), `2026-W48`, `2026-11`, `2026-Q4`, `2026`.
Pure functions of the phrase and the day counted from; None when the phrase names no date.
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import date, timedelta

Span = tuple[date, date]

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_ISO = r"\d{4}-\d{2}-\d{2}"
_UNIT = r"(day|week|month|year)s?"
_COUNT = r"(\d{1,4}|" + "|".join(_NUMBERS) + ")"
_IN = re.compile(rf"in {_COUNT} {_UNIT}")
_AGO = re.compile(rf"{_COUNT} {_UNIT} (ago|from now|later)")
_PERIOD = re.compile(r"(this|next|last|previous) (week|month|quarter|year)")
_WEEKDAY = re.compile(r"(?:(this|next|last|previous) )?(" + "|".join(WEEKDAYS) + ")")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")  # fmt: skip
_MONTH_NUMBERS = {w: i for i, m in enumerate(MONTHS, start=1) for w in (m, m[:3], m[:3] + ".")} | {"sept": 9}
_MONTH = "(" + "|".join(re.escape(w) for w in sorted(_MONTH_NUMBERS, key=len, reverse=True)) + ")"
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_DAY_MONTH = re.compile(rf"{_ORDINAL} (?:of )?{_MONTH},?(?: (\d{{4}}))?")  # 25th May 2023, 14 October
_MONTH_DAY = re.compile(rf"{_MONTH} {_ORDINAL},?(?: (\d{{4}}))?")  # May 25th, 2023
_MONTH_ONLY = re.compile(rf"{_MONTH}(?: (\d{{4}}))?")  # May: its 1st day, as the plugin reads it


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return date(year, month + 1, min(day.day, monthrange(year, month + 1)[1]))


def _shift(today: date, n: int, unit: str) -> date:
    if unit == "day":
        return today + timedelta(days=n)
    if unit == "week":
        return today + timedelta(weeks=n)
    return add_months(today, n * (12 if unit == "year" else 1))


def _month(year: int, month: int) -> Span:
    return date(year, month, 1), date(year, month, monthrange(year, month)[1])


def _quarter(year: int, quarter: int) -> Span:
    return date(year, 3 * quarter - 2, 1), _month(year, 3 * quarter)[1]


def _period(today: date, which: str, unit: str) -> Span:
    step = {"this": 0, "next": 1}.get(which, -1)
    if unit == "week":
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
        return monday, monday + timedelta(days=6)
    if unit == "month":
        first = add_months(today.replace(day=1), step)
        return _month(first.year, first.month)
    if unit == "quarter":
        index = today.year * 4 + (today.month - 1) // 3 + step
        return _quarter(index // 4, index % 4 + 1)
    return date(today.year + step, 1, 1), date(today.year + step, 12, 31)


def _weekday(today: date, which: str | None, name: str) -> date:
    """As chrono-node 2.3.9 (the plugin's date parser, src/calculation/weeks.ts) reads a weekday: in
    the Sunday-to-Saturday week holding today, `this friday` is that week's Friday, `next friday`
    the next week's, `last friday` the week before's; `friday` alone the closest Friday (3 days
    either way at most: on a Wednesday `tuesday` is yesterday, as the plugin's docs say)."""
    offset, ref = (WEEKDAYS.index(name) + 1) % 7, (today.weekday() + 1) % 7  # Sunday 0, as dayjs' day()
    if which == "next":
        n = offset + 7
    elif which in ("last", "previous"):
        n = offset - 7
    elif which == "this" or abs(offset - ref) <= min(abs(offset - 7 - ref), abs(offset + 7 - ref)):
        n = offset
    else:
        n = offset - 7 if abs(offset - 7 - ref) < abs(offset - ref) else offset + 7
    return today + timedelta(days=n - ref)


def _spoken(text: str, today: date) -> date | None:
    """A day written in words, as the plugin's date parser reads it: `25th May 2023`, `May 25, 2023`,
    `14 October` and `May` (this year's when no year is written; a month alone is its first day)."""
    if m := _DAY_MONTH.fullmatch(text):
        day, month, year = m.group(1), _MONTH_NUMBERS[m.group(2)], m.group(3)
    elif m := _MONTH_DAY.fullmatch(text):
        month, day, year = _MONTH_NUMBERS[m.group(1)], m.group(2), m.group(3)
    elif m := _MONTH_ONLY.fullmatch(text):
        month, day, year = _MONTH_NUMBERS[m.group(1)], "1", m.group(2)
    else:
        return None
    try:
        return date(int(year) if year else today.year, month, int(day))
    except ValueError:
        return None


def _named(text: str) -> Span | None:
    """Calendar periods written as numbers: 2026-W48, 2026-11, 2026-Q4, 2026."""
    if m := re.fullmatch(r"(\d{4})-w(\d{1,2})", text):
        try:
            monday = date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
        except ValueError:
            return None
        return monday, monday + timedelta(days=6)
    if m := re.fullmatch(r"(\d{4})-(\d{2})", text):
        return _month(int(m.group(1)), int(m.group(2))) if 1 <= int(m.group(2)) <= 12 else None
    if m := re.fullmatch(r"(\d{4})-q([1-4])", text):
        return _quarter(int(m.group(1)), int(m.group(2)))
    if re.fullmatch(r"\d{4}", text):
        return date(int(text), 1, 1), date(int(text), 12, 31)
    return None


def parse_span(phrase: str, today: date) -> Span | None:
    """The days `phrase` names, counted from `today`; None when it names none."""
    text = " ".join(phrase.lower().split())
    if m := re.fullmatch(rf"({_ISO}) ({_ISO})", text):
        a, b = _day(m.group(1)), _day(m.group(2))
        return (min(a, b), max(a, b)) if a and b else None
    if re.fullmatch(_ISO, text):
        d = _day(text)
        return (d, d) if d else None
    if (span := _named(text)) is not None:
        return span
    one: date | None = None
    if text in ("today", "now"):
        one = today
    elif text == "tomorrow":
        one = today + timedelta(days=1)
    elif text == "yesterday":
        one = today - timedelta(days=1)
    elif m := _IN.fullmatch(text):
        one = _shift(today, _count(m.group(1)), m.group(2))
    elif m := _AGO.fullmatch(text):
        n = _count(m.group(1))
        one = _shift(today, -n if m.group(3) == "ago" else n, m.group(2))
    elif m := _PERIOD.fullmatch(text):
        return _period(today, m.group(1), m.group(2))
    elif m := _WEEKDAY.fullmatch(text):
        one = _weekday(today, m.group(1), m.group(2))
    else:
        one = _spoken(text, today)
    return (one, one) if one is not None else None


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word]
