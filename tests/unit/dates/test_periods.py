"""Periodic-note settings: Periodic Notes 1.0 and 0.0.17, core Daily notes, Obsidian defaults."""

from __future__ import annotations

from datetime import date

from service.dates.periods import PERIODS, period_config

DAY = date(2026, 11, 24)


def test_defaults_are_obsidians() -> None:
    paths = [period_config(p, None, None).path_for(DAY) for p in PERIODS]
    assert paths == ["2026-11-24.md", "2026-W48.md", "2026-11.md", "2026-Q4.md", "2026.md"]
    assert all(period_config(p, None, None).source == "default" for p in PERIODS)


def test_core_daily_notes_settings_apply_to_daily_notes_only() -> None:
    core = {"folder": "/Journal/", "format": "", "template": "Templates/Day"}
    daily = period_config("daily", None, core)
    assert (daily.path_for(DAY), daily.template, daily.source) == (
        "Journal/2026-11-24.md",
        "Templates/Day",
        "daily-notes",
    )
    assert period_config("weekly", None, core).source == "default"


def test_periodic_notes_0_0_17_wins_when_enabled() -> None:
    plugin = {"daily": {"enabled": True, "format": "DD-MM-YYYY", "folder": "D", "template": "T"},
              "monthly": {"enabled": False, "format": "MM-YYYY", "folder": "M"}}  # fmt: skip
    daily = period_config("daily", plugin, {"folder": "Core"})
    assert (daily.path_for(DAY), daily.source, daily.template) == ("D/24-11-2026.md", "periodic-notes 0.0.17", "T")
    assert period_config("monthly", plugin, None).path_for(DAY) == "2026-11.md"  # disabled: the default


def test_periodic_notes_1_0_reads_the_active_calendar_set() -> None:
    plugin = {
        "activeCalendarSet": "B",
        "calendarSets": [
            {"id": "A", "week": {"enabled": True, "format": "YYYY-[W]ww", "folder": "A"}},
            {"id": "B", "week": {"enabled": True, "format": "GGGG-[W]WW", "folder": "B", "templatePath": "T/W.md"},
             "quarter": {"enabled": False, "format": "Q"}},
        ],
    }  # fmt: skip
    week = period_config("weekly", plugin, None)
    assert (week.path_for(date(2021, 1, 3)), week.source, week.template) == (
        "B/2020-W53.md",
        "periodic-notes 1.0",
        "T/W.md",
    )
    assert week.start_of(date(2021, 1, 3)) == date(2020, 12, 28)
    assert period_config("quarterly", plugin, None).source == "default"
    assert period_config("daily", plugin, {"folder": "Core"}).source == "daily-notes"


def test_the_help_vaults_subfolder_example() -> None:
    # obsidian-help-en, Daily notes: "YYYY/MMMM/YYYY-MMM-DD" creates "2023/January/2023-Jan-01"
    daily = period_config("daily", None, {"format": "YYYY/MMMM/YYYY-MMM-DD"})
    assert daily.path_for(date(2023, 1, 1)) == "2023/January/2023-Jan-01.md"
    assert daily.start_of(date(2023, 1, 1)) == date(2023, 1, 1)
