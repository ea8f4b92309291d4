"""Dates and durations of the Bases expression language.

A date is a naive local `datetime` with a flag telling whether it carries a time (`date("2025-01-01")`
has none, `now()` has one). A duration is calendar months plus milliseconds, so `date + "1M"` moves
to the same day of the next month as Moment.js does. Parsing date and duration strings,
`format()` (Moment.js tokens, written by `service.dates.moment`, the one implementation shared
with periodic notes and templates) and `relative()` ("3 days ago"). Touches nothing else.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

from service.dates import moment

_UNITS: dict[str, tuple[int, float]] = {}
for _names, _months, _ms in (
    (("y", "year", "years"), 12, 0.0),
    (("M", "month", "months"), 1, 0.0),
    (("w", "week", "weeks"), 0, 7 * 86_400_000.0),
    (("d", "day", "days"), 0, 86_400_000.0),
    (("h", "hour", "hours"), 0, 3_600_000.0),
    (("m", "minute", "minutes"), 0, 60_000.0),
    (("s", "second", "seconds"), 0, 1000.0),
    (("ms", "millisecond", "milliseconds"), 0, 1.0),
):
    for _n in _names:
        _UNITS[_n] = (_months, _ms)
_DURATION_PART = re.compile(r"\s*([+-]?\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*")


@dataclass(frozen=True, slots=True)
class Date:
    value: dt.datetime
    has_time: bool = True

    def millis(self) -> float:
        return self.value.timestamp() * 1000.0

    def text(self) -> str:
        return self.value.strftime("%Y-%m-%d %H:%M:%S" if self.has_time else "%Y-%m-%d")


@dataclass(frozen=True, slots=True)
class Duration:
    months: int = 0
    ms: float = 0.0

    def millis(self) -> float:
        """Approximate length: a month counts 30 days (only for comparing with numbers)."""
        return self.months * 30 * 86_400_000.0 + self.ms

    def scaled(self, factor: float) -> Duration:
        return Duration(round(self.months * factor), self.ms * factor)

    def plus(self, other: Duration, sign: int = 1) -> Duration:
        return Duration(self.months + sign * other.months, self.ms + sign * other.ms)

    def text(self) -> str:
        parts = []
        if self.months:
            parts.append(f"{self.months} months")
        if self.ms or not parts:
            parts.append(f"{self.ms / 1000:g} seconds")
        return " ".join(parts)


def parse_duration(text: str) -> Duration | None:
    """'1 week', '2h', '1M', '1y 2d' -> Duration; None when the text is not a duration."""
    s = text.strip()
    if not s:
        return None
    pos, months, ms = 0, 0.0, 0.0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if m is None:
            return None
        unit = _UNITS.get(m.group(2)) or _UNITS.get(m.group(2).lower())
        if unit is None:
            return None
        amount = float(m.group(1))
        months += amount * unit[0]
        ms += amount * unit[1]
        pos = m.end()
    return Duration(round(months), ms)


_DATE_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?)?$"
)


def parse_date(text: str) -> Date | None:
    """ISO-like dates: 'YYYY-MM-DD', 'YYYY-MM-DD HH:mm[:ss]', 'YYYY-MM-DDTHH:mm:ss[.fff][Z|+hh:mm]'."""
    m = _DATE_RE.match(text.strip())
    if m is None:
        return None
    y, mo, d, hh, mi, ss, frac, tz = m.groups()
    try:
        if hh is None:
            return Date(dt.datetime(int(y), int(mo), int(d)), has_time=False)
        value = dt.datetime(int(y), int(mo), int(d), int(hh), int(mi), int(ss or 0), int((frac or "0").ljust(6, "0")))
    except ValueError:
        return None
    if tz:
        offset = dt.timedelta(0) if tz == "Z" else _offset(tz)
        value = (value - offset).replace(tzinfo=dt.UTC).astimezone().replace(tzinfo=None)
    return Date(value, has_time=True)


def _offset(tz: str) -> dt.timedelta:
    sign = -1 if tz[0] == "-" else 1
    digits = tz[1:].replace(":", "")
    return sign * dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))


def from_timestamp(seconds: float) -> Date:
    return Date(dt.datetime.fromtimestamp(seconds), has_time=True)


def from_millis(ms: float) -> Date:
    return from_timestamp(ms / 1000.0)


def add(date: Date, duration: Duration, sign: int = 1) -> Date:
    value = date.value
    months = sign * duration.months
    if months:
        total = value.year * 12 + value.month - 1 + months
        year, month = divmod(total, 12)
        day = min(value.day, calendar.monthrange(year, month + 1)[1])
        value = value.replace(year=year, month=month + 1, day=day)
    if duration.ms:
        value = value + dt.timedelta(milliseconds=sign * duration.ms)
    has_time = date.has_time or duration.ms % 86_400_000 != 0
    return Date(value, has_time)


def now() -> Date:
    return Date(dt.datetime.now(), has_time=True)


def today() -> Date:
    return Date(dt.datetime.combine(dt.date.today(), dt.time()), has_time=False)


# -- Moment.js formats: the one implementation in service.dates.moment -----------------------


def format_date(date: Date, pattern: str) -> str:
    """`date.format(pattern)`: Moment's whole format token table; other letters are literal."""
    return moment.format_date(pattern, date.value, strict=False)


def relative(date: Date, reference: Date | None = None) -> str:
    """Moment.js `fromNow()` wording: 'a few seconds ago', 'in 3 days', '2 months ago'."""
    ref = (reference or now()).value
    seconds = (date.value - ref).total_seconds()
    past = seconds < 0
    s = abs(seconds)
    minutes, hours, days = s / 60, s / 3600, s / 86400
    if s < 45:
        text = "a few seconds"
    elif s < 90:
        text = "a minute"
    elif minutes < 45:
        text = f"{round(minutes)} minutes"
    elif minutes < 90:
        text = "an hour"
    elif hours < 22:
        text = f"{round(hours)} hours"
    elif hours < 36:
        text = "a day"
    elif days < 26:
        text = f"{round(days)} days"
    elif days < 45:
        text = "a month"
    elif days < 320:
        text = f"{round(days / 30.4)} months"
    elif days < 548:
        text = "a year"
    else:
        text = f"{round(days / 365)} years"
    return f"{text} ago" if past else f"in {text}"
