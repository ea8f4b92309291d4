"""Week rules: Moment's locale weeks for other locales and week starts, read from the Calendar
and Periodic Notes settings, checked against a brute-force week count and read back (round trip
format -> date -> path) for every rule."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from service.dates.locales import locale_week, week_rule
from service.dates.moment import ISO_WEEK, format_date, parse_date

RULES = [(0, 6), (1, 4), (0, 4), (1, 7), (6, 12), (1, 6), (3, 6)]  # en, en-gb, en-au, tr, ar, en+monday, odd


def _start(d: date, dow: int) -> date:
    return d - timedelta(days=(d.isoweekday() % 7 - dow) % 7)


def reference_week(d: date, dow: int, doy: int) -> tuple[int, int]:
    """(week-year, week) by the definition: week 1 is the week (from `dow`) holding January 7+dow-doy."""
    jan = 7 + dow - doy
    year = max(y for y in (d.year - 1, d.year, d.year + 1) if _start(date(y, 1, jan), dow) <= d)
    return year, (_start(d, dow) - _start(date(year, 1, jan), dow)).days // 7 + 1


def _days() -> list[date]:
    start = date(2019, 12, 14)
    return [start + timedelta(days=n) for n in range(0, 3 * 366)]


@pytest.mark.parametrize("rule", RULES)
def test_locale_weeks_match_the_definition_and_round_trip(rule: tuple[int, int]) -> None:
    for day in _days():
        year, week = reference_week(day, *rule)
        assert format_date("gggg-[W]ww", day, rule) == f"{year}-W{week:02d}", (rule, day)
        assert parse_date("gggg-[W]ww", f"{year}-W{week:02d}", rule) == _start(day, rule[0])
        for fmt in ("gggg-[W]ww-e", "gggg-[W]w dddd", "gg-[W]ww-d"):
            assert parse_date(fmt, format_date(fmt, day, rule), rule) == day, (fmt, rule, day)
        assert format_date("GGGG-[W]WW-E", day, rule) == format_date("GGGG-[W]WW-E", day)  # ISO stays ISO
        assert parse_date("GGGG-[W]WW-E", format_date("GGGG-[W]WW-E", day), rule) == day


def test_known_weeks_of_other_locales() -> None:
    sunday = date(2021, 1, 3)
    assert format_date("gggg-[W]ww", sunday) == "2021-W02"  # en: Sunday starts week 2
    assert format_date("gggg-[W]ww", sunday, locale_week("en-GB")) == "2020-W53"  # Monday weeks, 4 January
    assert format_date("gggg-[W]ww", date(2025, 12, 27), locale_week("ar")) == "2026-W01"  # Saturday weeks
    tuesday = date(2026, 11, 24)
    assert [format_date("e", tuesday, locale_week(x)) for x in ("en", "en-gb", "ar")] == ["2", "1", "3"]
    assert format_date("d E", tuesday, locale_week("en-gb")) == "2 2"  # d and E do not follow the locale


def test_locale_table_and_fallbacks() -> None:
    assert locale_week("en") == (0, 6) and locale_week("en_GB") == (1, 4) and locale_week("de-AT") == (1, 4)
    assert locale_week("tr") == (1, 7) and locale_week("xx") == (0, 6)  # unknown: Moment's default


def test_the_week_rule_comes_from_periodic_notes_then_calendar_then_vaultgate() -> None:
    calendar = {"weekStart": "monday", "localeOverride": "system-default", "wordsPerDot": 250}
    app = {"weekStart": "locale", "localeOverride": "en-gb"}
    got = week_rule(calendar, app)
    assert (got.week, got.source, got.locale) == ((1, 4), "periodic-notes 1.0", "en-gb")
    got = week_rule(calendar, {"attachmentFolderPath": "./"})
    # Moment merges {dow} into the locale's rule: doy stays English (week 1 holds 2 January).
    assert (got.week, got.source) == ((1, 6), "calendar")
    assert week_rule({"weekStart": "locale"}, None, "de").week == (1, 4)  # system locale: the setting
    assert week_rule(None, None).week == (0, 6) and week_rule(None, None).source == "vaultgate"
    assert week_rule(None, None, "fr", "sunday").week == (0, 4)
    assert week_rule({"weekStart": "funday"}, None).week == (0, 6)  # not a weekday: the locale's
    assert week_rule("not json object", [1, 2]).source == "vaultgate"
    assert ISO_WEEK == (1, 4)
