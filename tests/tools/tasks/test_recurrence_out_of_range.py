"""Completing a recurring task whose next occurrence no date can hold is refused, nothing changed.

Found probing set_task_status with hostile recurrence rules (R5 s75): 'every 99999999999999999999
days' (or months, years) raised OverflowError in the date arithmetic (internal_error), and 'every
99999999999999999999 weeks on Monday' first walked day by day to the year 9999 (seconds of CPU) before
overflowing. Now such a call answers validation_error (details.reason recurrence_out_of_range) at
once, and a weekly rule on weekdays finds its next week without walking to it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

from service.dates.recurrence import next_date, parse_rule
from tests.conftest import started

HUGE = "99999999999999999999"
RULES = [f"every {HUGE} days", f"every {HUGE} weeks on Monday", f"every {HUGE} months", f"every {HUGE} years in June"]


async def test_a_next_occurrence_past_the_calendar_is_a_validation_error(make_vault: Callable[..., Path]) -> None:
    lines = [f"- [ ] t{i} 🔁 {rule} 📅 2026-12-06" for i, rule in enumerate(RULES)] + [
        "- [ ] end 🔁 every day 📅 9999-12-31"
    ]
    async with started(make_vault({"R.md": "\n".join(lines) + "\n"})) as vg:
        await vg.indexed()
        before = vg.snapshot()
        for no, line in enumerate(lines, 1):
            error = await vg.err("set_task_status", "validation_error", path="R", line=no, status="done",
                                 expected_text=line[6:])  # fmt: skip
            assert error["details"]["reason"] == "recurrence_out_of_range", error
        assert vg.snapshot() == before


def test_a_weekly_rule_on_weekdays_finds_the_series_next_week() -> None:
    sunday = date(2026, 12, 6)
    assert next_date(parse_rule("every week on Monday"), sunday) == date(2026, 12, 7)
    assert next_date(parse_rule("every 2 weeks on Monday, Friday"), sunday) == date(2026, 12, 14)
    assert next_date(parse_rule("every 2 weeks on Monday, Friday"), date(2026, 11, 30)) == date(2026, 12, 4)
    assert next_date(parse_rule("every 3 weeks on Sunday"), sunday) == date(2026, 12, 27)
