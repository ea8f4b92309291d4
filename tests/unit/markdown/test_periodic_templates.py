"""The Periodic Notes plugin's template variables, per plugin generation and period, as its
sources fill them (0.0.17 through its daily-notes library; 1.0 with `calendarSets`)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pytest

from service.dates.moment import LOCALE_WEEK
from service.markdown.periodic_templates import render_periodic, shifted

NOW = datetime(2026, 11, 24, 9, 5, 7)  # the wall clock when the note is made
GB = (1, 4)


def fill(text: str, style: str, period: Any, name: str, start: date, fmt: str, week: Any = LOCALE_WEEK) -> str:
    return render_periodic(
        text,
        style=style,
        period=period,
        name=name,
        start=start,
        now=NOW,
        fmt=fmt,
        week=week,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("style", ["periodic-notes 0.0.17", "periodic-notes 1.0"])
def test_daily_variables(style: str) -> None:
    text = (
        "# {{title}}\n{{date}} {{ time }}\n<< [[{{yesterday}}]] | [[{{Tomorrow}}]] >>\n"
        "{{date:dddd D MMMM}} {{time:HH:mm}} {{date+1w:YYYY-MM-DD}} {{date-1M}} {{date+2d:ddd}} {{date-3h:HH:mm}}\n"
        "{{other}} {{date:YYYY}}{{date:MM}}\n"
    )
    out = fill(text, style, "daily", "Journal/2026-03-31", date(2026, 3, 31), "YYYY-MM-DD")
    assert out == (
        "# Journal/2026-03-31\nJournal/2026-03-31 09:05\n<< [[2026-03-30]] | [[2026-04-01]] >>\n"
        "Tuesday 31 March 09:05 2026-04-07 2026-02-28 Thu 06:05\n"
        "{{other}} 202603\n"
    )


def test_offsets_follow_moments_units() -> None:
    t = datetime(2024, 1, 31, 12, 0)
    assert shifted(t, 1, "M") == datetime(2024, 2, 29, 12, 0)  # a month keeps the day or takes the last
    assert shifted(t, 1, "Q") == datetime(2024, 4, 30, 12, 0) and shifted(t, -1, "y") == datetime(2023, 1, 31, 12)
    assert shifted(t, 30, "m") == datetime(2024, 1, 31, 12, 30)  # m is minutes
    assert shifted(t, 1, "q") == t and shifted(t, 1, "D") == t  # no duration unit in Moment
    assert shifted(t, 2, "W") == datetime(2024, 2, 14, 12, 0)


def test_weekly_variables_follow_the_week_rule() -> None:
    text = "{{title}}: {{monday:ddd D}} to {{sunday:ddd D}}; {{date:YYYY-MM-DD}} {{time}}\n"
    week = "2026-W48"
    en = fill(text, "periodic-notes 0.0.17", "weekly", week, date(2026, 11, 22), "gggg-[W]ww")
    # 0.0.17 fills date/time (bare ones too) with the week's first day first; Sunday starts an English week.
    assert en == "2026-W48: Mon 23 to Sun 22; 2026-11-22 2026-W48\n"
    gb = fill(text, "periodic-notes 0.0.17", "weekly", week, date(2026, 11, 23), "gggg-[W]ww", GB)
    assert gb == "2026-W48: Mon 23 to Sun 29; 2026-11-23 2026-W48\n"
    new = fill(text, "periodic-notes 1.0", "weekly", week, date(2026, 11, 23), "gggg-[W]ww", GB)
    # 1.0: only the bare {{date}}/{{time}} of every period; the offset form is for daily notes.
    assert new == "2026-W48: Mon 23 to Sun 29; {{date:YYYY-MM-DD}} 09:05\n"


def test_monthly_quarterly_yearly_variables() -> None:
    text = "{{title}} {{date}} {{month:MMMM}} {{month+1M:MMMM}} {{quarter:[Q]Q}} {{year-1y}} {{date:MMM}}\n"
    old = fill(text, "periodic-notes 0.0.17", "monthly", "2026-11", date(2026, 11, 1), "YYYY-MM")
    assert old == "2026-11 2026-11 {{month:MMMM}} {{month+1M:MMMM}} {{quarter:[Q]Q}} {{year-1y}} Nov\n"
    new = fill(text, "periodic-notes 1.0", "monthly", "2026-11", date(2026, 11, 1), "YYYY-MM")
    assert new == "2026-11 2026-11 November December {{quarter:[Q]Q}} {{year-1y}} {{date:MMM}}\n"
    quarter = fill(text, "periodic-notes 1.0", "quarterly", "2026-Q4", date(2026, 10, 1), "YYYY-[Q]Q")
    assert quarter.split()[4] == "Q4"
    year = fill(text, "periodic-notes 1.0", "yearly", "2026", date(2026, 1, 1), "YYYY")
    assert year.split()[5] == "2025"


def test_letters_that_are_no_token_in_a_variable_are_written_as_they_are() -> None:
    day = date(2026, 11, 24)
    text = fill("{{date:YYYY-MM-DD fff}}", "periodic-notes 1.0", "daily", "2026-11-24", day, "YYYY-MM-DD")
    assert text == "2026-11-24 fff"  # as Moment writes them
