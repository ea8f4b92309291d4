"""Recurrence rules of the Tasks plugin (`🔁 every week on Sunday`) and the next date they give.

The plugin hands its rules to an iCalendar RRULE engine: the next occurrence is the first date of
the rule's series, started on the reference date, strictly after it. This module implements the
rule forms the plugin documents, with the same results:

- `every day`, `every 3 days`, `every week`, `every 2 weeks`, `every weekday` (Mon–Fri),
  `every Sunday`, `every week on Monday, Wednesday and Friday`, `every 3 weeks on Friday`;
- `every month`, `every 2 months` (a day that does not exist moves earlier: 31 Oct → 30 Nov),
  `every month on the 1st`, `… on the 31st` (months without it are skipped), `… on the last`,
  `… on the last Friday`, `… on the 2nd last Friday`, `… on the 2nd Wednesday`;
- `every year`, `every 2 years` (29 Feb → 28 Feb), `every January on the 15th`,
  `every April and December on the 1st and 24th`;
- any of them followed by `when done`: counted from the completion date instead.

Words as the plugin's rule reader (rrule.js `parseText`, English tokens) takes them: day and month
names abbreviated (`mon`, `tues`, `thu`, `sept`, `jan`), any case; `first`, `second`, `third` as
ordinals (`every month on the first Monday`, `… on the second last Friday`, `… on the first`);
`in` for `on` (`every year in January`), `or` for `and`; `every year on January` is `every
January`. What that reader refuses is refused here too: `every other week` (no `other` in its
words: the plugin does not recur such a task). A rule outside these forms is `RecurrenceError`:
refusing is better than a wrong date — also where rrule.js reads less than is written (`every year
on January 5` is `every January` to it, the `5` dropped, the day the reference date's).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = tuple(m.lower() for m in calendar.month_name[1:])
# rrule.js' English tokens for the names (its nlp/i18n.ts): Monday is `mo`, `mon` or `monday`, …
_WEEKDAY_WORDS = tuple(
    re.compile(p)
    for p in (
        "mo(n(day)?)?", "tu(e(s(day)?)?)?", "we(d(n(esday)?)?)?", "th(u(r(sday)?)?)?", "fr(i(day)?)?",
        "sa(t(urday)?)?", "su(n(day)?)?",
    )
)  # fmt: skip
_MONTH_WORDS = tuple(
    re.compile(p)
    for p in (
        "jan(uary)?", "feb(ruary)?", "mar(ch)?", "apr(il)?", "may", "june?", "july?", "aug(ust)?",
        "sep(t(ember)?)?", "oct(ober)?", "nov(ember)?", "dec(ember)?",
    )
)  # fmt: skip
_NTH_WORDS = {"first": 1, "second": 2, "third": 3}  # rrule.js has no word past 'third'
_JOINS = ("and", "or")
_UNITS = {"day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month", "months": "month"}
_UNITS |= {"year": "year", "years": "year"}
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)?$")
# Enough periods to find the next occurrence of any supported rule (`on the 31st` skips at most
# a few months; a yearly day-of-month rule at most 8 years for 29 February).
_HORIZON = 12 * 9


class RecurrenceError(ValueError):
    """A rule this module does not understand."""


@dataclass(frozen=True, slots=True)
class Rule:
    unit: str  # day | week | month | year
    interval: int
    weekdays: tuple[int, ...] = ()  # 0 = Monday
    month_days: tuple[int, ...] = ()  # 1..31, -1 = last
    nth_weekday: tuple[int, int] | None = None  # (n, weekday): n = 1..5 or -1, -2 for 'last', '2nd last'
    months: tuple[int, ...] = ()  # 1..12
    when_done: bool = False


def _words(text: str) -> list[str]:
    return re.sub(r"[,]", " ", text.lower()).split()


def _weekday(word: str) -> int | None:
    return next((i for i, p in enumerate(_WEEKDAY_WORDS) if p.fullmatch(word)), None)


def _month(word: str) -> int | None:
    """1..12 for a month's name (or rrule.js' abbreviation of it)."""
    return next((i + 1 for i, p in enumerate(_MONTH_WORDS) if p.fullmatch(word)), None)


def _ordinal(word: str) -> int | None:
    m = _ORDINAL.match(word)
    return int(m.group(1)) if m else _NTH_WORDS.get(word)


def parse_rule(text: str) -> Rule:
    """A rule from its text (`every 2 weeks on Friday when done`)."""
    words = _words(text)
    when_done = words[-2:] == ["when", "done"]
    if when_done:
        words = words[:-2]
    if not words or words[0] != "every" or len(words) < 2:
        raise RecurrenceError(f"a recurrence rule starts with 'every': {text!r}")
    rest = words[1:]
    interval = 1
    if rest[0].isdigit():
        interval = int(rest[0])
        rest = rest[1:]
        if interval < 1 or not rest:
            raise RecurrenceError(f"invalid interval in {text!r}")
    head, on = rest, []
    if "on" in rest or "in" in rest:
        i = next(i for i, w in enumerate(rest) if w in ("on", "in"))
        head, on = rest[:i], rest[i + 1 :]
    try:
        rule = _rule(head, on, interval)
    except (ValueError, IndexError):
        raise RecurrenceError(f"unsupported recurrence rule {text!r}") from None
    return Rule(rule.unit, rule.interval, rule.weekdays, rule.month_days, rule.nth_weekday, rule.months, when_done)


def _rule(head: list[str], on: list[str], interval: int) -> Rule:
    items = [w for w in head if w not in _JOINS]
    on = [w for w in on if w not in _JOINS]
    if items in (["weekday"], ["weekdays"]) and not on:
        return Rule("week", interval, weekdays=(0, 1, 2, 3, 4))
    if items and all(_weekday(w) is not None for w in items) and not on:
        return Rule("week", interval, weekdays=tuple(sorted({_weekday(w) or 0 for w in items})))
    if items and all(_month(w) is not None for w in items):
        months = tuple(sorted({_month(w) or 1 for w in items}))
        days, nth = _month_position(on) if on else ((), None)
        return Rule("year", interval, month_days=days, nth_weekday=nth, months=months)
    if items in (["year"], ["years"]) and on and all(_month(w) is not None for w in on):  # `every year in June`
        return Rule("year", interval, months=tuple(sorted({_month(w) or 1 for w in on})))
    if len(items) != 1 or items[0] not in _UNITS:
        raise ValueError(head)
    unit = _UNITS[items[0]]
    if not on:
        return Rule(unit, interval)
    if unit == "week":
        if not on or any(_weekday(w) is None for w in on):
            raise ValueError(on)
        return Rule("week", interval, weekdays=tuple(sorted({_weekday(w) or 0 for w in on})))
    if unit == "month":
        month_days, nth = _month_position(on)
        return Rule("month", interval, month_days=month_days, nth_weekday=nth)
    raise ValueError(on)


def _month_position(on: list[str]) -> tuple[tuple[int, ...], tuple[int, int] | None]:
    """`the 1st and 24th`, `the last`, `the last Friday`, `the 2nd last Friday`, `the 2nd Wednesday`."""
    words = on[1:] if on[:1] == ["the"] else on
    if words and (weekday := _weekday(words[-1])) is not None:
        spec = words[:-1]
        if spec == ["last"]:
            return (), (-1, weekday)
        n = _ordinal(spec[0]) if spec else None
        if n is not None and spec[1:] == ["last"]:
            return (), (-n, weekday)
        if n is not None and len(spec) == 1 and 1 <= n <= 5:
            return (), (n, weekday)
        raise ValueError(on)
    days: list[int] = []
    for w in words:
        if w in ("and", "the", "day"):  # `on the first day`: rrule.js takes the word after an ordinal
            continue
        if w == "last":
            days.append(-1)
            continue
        n = _ordinal(w)
        if n is None or not 1 <= n <= 31:
            raise ValueError(on)
        days.append(n)
    if not days:
        raise ValueError(on)
    return tuple(sorted(set(days))), None


def _add_months(d: date, months: int) -> date:
    """`d` plus whole months; a day the month lacks moves earlier (31 → 30, 29 Feb → 28 Feb)."""
    total = d.year * 12 + d.month - 1 + months
    year, month = divmod(total, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(d.day, last))


def _days_in_month(year: int, month: int, rule: Rule) -> list[date]:
    last = calendar.monthrange(year, month)[1]
    out: list[date] = []
    for day in rule.month_days:
        n = last if day == -1 else day
        if n <= last:
            out.append(date(year, month, n))
    if rule.nth_weekday is not None:
        n, weekday = rule.nth_weekday
        matches = [date(year, month, d) for d in range(1, last + 1) if date(year, month, d).weekday() == weekday]
        if -len(matches) <= (n if n < 0 else n - 1) < len(matches):
            out.append(matches[n if n < 0 else n - 1])
    return sorted(out)


def next_date(rule: Rule, base: date) -> date:
    """The first occurrence of `rule` strictly after `base`, its series starting on `base`."""
    if rule.unit == "day":
        return base + timedelta(days=rule.interval)
    if rule.unit == "week":
        if not rule.weekdays:
            return base + timedelta(weeks=rule.interval)
        # RRULE weeks start on Monday: the rest of the week of `base`, else the series' next week
        # (`interval` weeks on; a day by day walk there took seconds for 'every 99999999 weeks')
        for d in (base + timedelta(days=k) for k in range(1, 7 - base.weekday())):
            if d.weekday() in rule.weekdays:
                return d
        week = base - timedelta(days=base.weekday()) + timedelta(weeks=rule.interval)
        return week + timedelta(days=min(rule.weekdays))
    if rule.unit == "month":
        if not rule.month_days and rule.nth_weekday is None:
            return _add_months(base, rule.interval)
        for k in range(_HORIZON):
            first = _add_months(base.replace(day=1), k * rule.interval)
            for d in _days_in_month(first.year, first.month, rule):
                if d > base:
                    return d
    if rule.unit == "year":
        if not rule.months:
            return _add_months(base, 12 * rule.interval)
        for k in range(_HORIZON):
            year = base.year + k * rule.interval
            for month in rule.months:
                if not rule.month_days and rule.nth_weekday is None:
                    candidates = [_add_months(base, (year - base.year) * 12 + month - base.month)]
                else:
                    candidates = _days_in_month(year, month, rule)
                for d in candidates:
                    if d > base:
                        return d
    raise RecurrenceError(f"no next occurrence for {rule} after {base}")
