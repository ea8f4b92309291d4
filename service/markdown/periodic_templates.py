"""The template variables the Periodic Notes plugin fills when it creates a periodic note.

Periodic Notes fills its own variables, not the core Templates plugin's, and its two settings
formats are two generations of the plugin that fill different sets (in this order, as the plugin
does, so a value one step writes is never read again by a later step):

- 0.0.17 (through its daily-notes library): a daily note gets `{{date}}` and `{{title}}` (the note
  name), `{{time}}` (now, `HH:mm`), then `{{date±N<unit>:FORMAT}}` / `{{time±N<unit>:FORMAT}}`
  (the note's day at the current time, moved by the offset, in FORMAT or else the note's own
  format), then `{{yesterday}}` and `{{tomorrow}}` (in the note's format). Weekly, monthly,
  quarterly and yearly notes get the offset form first — so a bare `{{date}}` or `{{time}}` is
  the period's first day in the note's format there — then `{{title}}`; weekly notes also
  `{{sunday:FORMAT}}` … `{{saturday:FORMAT}}`, the named day of the note's week.
- 1.0 (`calendarSets`): every note gets `{{date}}`, `{{title}}` (the note name) and `{{time}}`
  (now, `HH:mm`); then a daily note `{{yesterday}}`, `{{tomorrow}}` and the offset form of
  `date`/`time`; a weekly note the weekday names; a monthly (quarterly, yearly) note
  `{{month±N<unit>:FORMAT}}` (`quarter`, `year`): the period's first day, offset and formatted.

Offsets are Moment's: `y` years, `Q` quarters, `M` months, `m` minutes, `w` weeks, `d` days, `h`
hours, `s` seconds (the letter's case matters where Moment's does; `q` and `D` move nothing, as in
Moment); a month step keeps the day or takes the month's last. Names and days follow the vault's
week rule (`week`). Any other `{{…}}` stays as written. A format with a token `service.dates.moment`
does not know raises `MomentError`.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Literal

from service.dates.moment import Week, format_date

Style = Literal["periodic-notes 0.0.17", "periodic-notes 1.0"]
PeriodName = Literal["daily", "weekly", "monthly", "quarterly", "yearly"]

_OFFSET = r"\s*(([+-]\d+)([yqmwdhs]))?\s*(:.+?)?\}\}"
_DATE_TIME = re.compile(r"\{\{\s*(date|time)" + _OFFSET, re.IGNORECASE)
_WEEKDAY = re.compile(r"\{\{\s*(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\s*:(.*?)\}\}", re.I)
_PERIOD_VAR = {
    name: re.compile(r"\{\{\s*(" + name + ")" + _OFFSET, re.IGNORECASE) for name in ("month", "quarter", "year")
}
_WEEKDAYS = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
_STEPS = {
    "w": timedelta(weeks=1), "W": timedelta(weeks=1), "d": timedelta(days=1), "h": timedelta(hours=1),
    "H": timedelta(hours=1), "m": timedelta(minutes=1), "s": timedelta(seconds=1), "S": timedelta(seconds=1),
}  # fmt: skip
_START_OF = {"monthly": "month", "quarterly": "quarter", "yearly": "year"}


def _plain(name: str) -> re.Pattern[str]:
    return re.compile(r"\{\{\s*" + name + r"\s*\}\}", re.IGNORECASE)


def add_months(t: datetime, months: int) -> datetime:
    index = t.year * 12 + t.month - 1 + months
    year, month = divmod(index, 12)
    return t.replace(year=year, month=month + 1, day=min(t.day, calendar.monthrange(year, month + 1)[1]))


def shifted(t: datetime, amount: int, unit: str) -> datetime:
    """`t` moved as Moment's `add(amount, unit)` moves it, for the one-letter units."""
    if unit in ("y", "Y"):
        return add_months(t, 12 * amount)
    if unit == "Q":
        return add_months(t, 3 * amount)
    if unit == "M":
        return add_months(t, amount)
    step = _STEPS.get(unit)
    return t + step * amount if step is not None else t  # 'q' and 'D' are no duration unit in Moment


def weekday_in_week(day: date, name: str, week: Week) -> date:
    """Moment's `weekday(n)`: the day called `name` in the locale week holding `day`."""
    first = day - timedelta(days=(day.isoweekday() % 7 - week[0]) % 7)
    return first + timedelta(days=(_WEEKDAYS.index(name.lower()) - week[0]) % 7)


def _offset_sub(pattern: re.Pattern[str], base: datetime, fmt: str, week: Week) -> Callable[[str], str]:
    def value(m: re.Match[str]) -> str:
        t = shifted(base, int(m.group(3)), m.group(4)) if m.group(2) else base
        return format_date(m.group(5)[1:].strip() if m.group(5) else fmt, t, week)

    return lambda text: pattern.sub(value, text)


def render_periodic(
    text: str, *, style: Style, period: PeriodName, name: str, start: date, now: datetime, fmt: str, week: Week
) -> str:
    """The template `text` as Periodic Notes fills it for the note `name` of the period starting
    on `start`, created at `now` (see the module docstring)."""
    at = datetime.combine(start, now.time().replace(microsecond=0))
    clock = format_date("HH:mm", now, week)
    plain = {"date": lambda t: _plain("date").sub(lambda _: name, t),
             "time": lambda t: _plain("time").sub(lambda _: clock, t),
             "title": lambda t: _plain("title").sub(lambda _: name, t)}  # fmt: skip
    offsets = _offset_sub(_DATE_TIME, at, fmt, week)

    def days(t: str) -> str:
        t = _plain("yesterday").sub(lambda _: format_date(fmt, start - timedelta(days=1), week), t)
        return _plain("tomorrow").sub(lambda _: format_date(fmt, start + timedelta(days=1), week), t)

    def weekdays(t: str) -> str:
        return _WEEKDAY.sub(
            lambda m: format_date(m.group(2).strip(), datetime.combine(
                weekday_in_week(start, m.group(1), week), at.time()), week), t)  # fmt: skip

    steps: list[Callable[[str], str]]
    if style == "periodic-notes 1.0":
        steps = [plain["date"], plain["time"], plain["title"]]
        if period == "daily":
            steps += [days, offsets]
        elif period == "weekly":
            steps.append(weekdays)
        else:
            steps.append(_offset_sub(_PERIOD_VAR[_START_OF[period]], at, fmt, week))
    elif period == "daily":
        steps = [plain["date"], plain["time"], plain["title"], offsets, days]
    elif period == "weekly":
        steps = [offsets, plain["title"], plain["time"], weekdays]
    else:
        steps = [offsets, plain["date"], plain["time"], plain["title"]]
    for step in steps:
        text = step(text)
    return text
