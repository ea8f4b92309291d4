"""Tasks plugin recurrence rules: the series its documentation shows, date for date."""

from __future__ import annotations

from datetime import date

import pytest

from service.dates.recurrence import RecurrenceError, next_date, parse_rule


def series(rule: str, start: date, n: int) -> list[str]:
    parsed, out, day = parse_rule(rule), [], start
    for _ in range(n):
        day = next_date(parsed, day)
        out.append(day.isoformat())
    return out


def test_documented_monthly_series() -> None:
    # Recurring Tasks docs: "every month on the last", "every month" (moves earlier), "on the 31st" (skips)
    assert series("every month on the last", date(2022, 1, 31), 5) == [
        "2022-02-28", "2022-03-31", "2022-04-30", "2022-05-31", "2022-06-30"
    ]  # fmt: skip
    assert series("every month", date(2021, 10, 31), 5) == [
        "2021-11-30", "2021-12-30", "2022-01-30", "2022-02-28", "2022-03-28"
    ]  # fmt: skip
    assert series("every month on the 31st", date(2022, 1, 31), 4) == [
        "2022-03-31", "2022-05-31", "2022-07-31", "2022-08-31"
    ]  # fmt: skip


def test_documented_weekly_and_other_forms() -> None:
    assert series("every Sunday", date(2021, 4, 25), 1) == ["2021-05-02"]
    assert series("every week on Sunday", date(2021, 4, 25), 1) == ["2021-05-02"]
    assert series("every 2 weeks", date(2021, 10, 30), 1) == ["2021-11-13"]
    assert series("every weekday", date(2026, 11, 27), 2) == ["2026-11-30", "2026-12-01"]  # Fri -> Mon, Tue
    assert series("every week on Monday, Wednesday and Friday", date(2026, 11, 24), 3) == [
        "2026-11-25", "2026-11-27", "2026-11-30"
    ]  # fmt: skip
    assert series("every 3 weeks on Friday", date(2026, 11, 24), 2) == ["2026-11-27", "2026-12-18"]
    assert series("every 3 days", date(2026, 11, 30), 1) == ["2026-12-03"]
    assert series("every month on the 1st", date(2026, 12, 1), 2) == ["2027-01-01", "2027-02-01"]
    assert series("every month on the last Friday", date(2026, 11, 24), 2) == ["2026-11-27", "2026-12-25"]
    assert series("every month on the 2nd last Friday", date(2026, 11, 24), 1) == ["2026-12-18"]
    assert series("every 6 months on the 2nd Wednesday", date(2026, 1, 14), 1) == ["2026-07-08"]
    assert series("every January on the 15th", date(2026, 1, 15), 1) == ["2027-01-15"]
    assert series("every February on the last", date(2026, 2, 28), 1) == ["2027-02-28"]
    assert series("every year", date(2024, 2, 29), 1) == ["2025-02-28"]
    assert series("every 2 years", date(2026, 5, 1), 1) == ["2028-05-01"]


def test_when_done_is_read_and_kept_apart() -> None:
    rule = parse_rule("every 10 days when done")
    assert rule.when_done and rule.unit == "day" and rule.interval == 10
    assert not parse_rule("every week").when_done


@pytest.mark.parametrize("text", ["weekly", "every", "every blue moon", "every 0 days", "every month on the 32nd",
                                  "every week on Funday", "every 2 weeks for 3 times"])  # fmt: skip
def test_rules_outside_the_documented_forms_are_refused(text: str) -> None:
    with pytest.raises(RecurrenceError):
        parse_rule(text)
