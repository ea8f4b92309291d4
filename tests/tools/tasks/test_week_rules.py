"""Week rules and the Periodic Notes plugin's template variables through the dispatch chain."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

CALENDAR = ".obsidian/plugins/calendar/data.json"
PERIODIC = ".obsidian/plugins/periodic-notes/data.json"
DAY = "# {{title}}\n[[{{yesterday}}]] · [[{{tomorrow}}]] · {{date+1w:YYYY-MM-DD}} · {{date:dddd}}\n"
WEEK = "## {{title}}\n- {{monday:YYYY-MM-DD}}\n- {{sunday:YYYY-MM-DD}}\n"


async def test_weekly_names_follow_the_calendar_plugins_week_start(make_vault: Callable[..., Path]) -> None:
    sunday = "2026-11-29"
    async with started(make_vault({"a.md": "a\n"})) as vg:
        out = await vg.ok("get_periodic_note", period="weekly", date=sunday)
        assert (out["path"], out["period_start"]) == ("2026-W49.md", "2026-11-29")  # English: Sunday opens W49
    files = {CALENDAR: json.dumps({"weekStart": "monday", "localeOverride": "system-default", "wordsPerDot": 250})}
    async with started(make_vault(files)) as vg:
        out = await vg.ok("get_periodic_note", period="weekly", date=sunday)
        assert (out["path"], out["period_start"]) == ("2026-W48.md", "2026-11-23")  # Monday weeks: it closes W48
        assert out["week_rule"] == "monday, week 1 holds 2 January (en, calendar)"
        iso = await vg.ok("get_periodic_note", period="daily", date=sunday)
        assert iso["path"] == "2026-11-29.md"
    app = {"weekStart": "locale", "localeOverride": "en-gb"}  # Periodic Notes 1.0 keeps these in app.json
    async with started(make_vault({".obsidian/app.json": json.dumps(app)})) as vg:
        out = await vg.ok("get_periodic_note", period="weekly", date="2021-01-03")
        assert (out["path"], out["period_start"]) == ("2020-W53.md", "2020-12-28")
        assert out["week_rule"] == "monday, week 1 holds 4 January (en-gb, periodic-notes 1.0)"


async def test_the_vaultgate_setting_is_the_fallback_week_rule(make_vault: Callable[..., Path]) -> None:
    files = {"T/Week.md": "{{date:gggg-[W]ww e}} {{date:GGGG-[W]WW E}}\n"}
    async with started(make_vault(files), notes={"week_locale": "de"}) as vg:
        out = await vg.ok("get_periodic_note", period="weekly", date="2021-01-03")
        assert out["path"] == "2020-W53.md"
        await vg.ok("apply_template", template="T/Week", path="Stamp", date="2021-01-03T10:00:00")
        assert vg.read("Stamp.md") == "2020-W53 6 2020-W53 7\n"  # the core Templates plugin: same locale weeks
    async with started(make_vault(files), notes={"week_locale": "de", "week_start": "sunday"}) as vg:
        await vg.ok("apply_template", template="T/Week", path="Stamp", date="2021-01-03T10:00:00")
        assert vg.read("Stamp.md") == "2021-W01 0 2020-W53 7\n"


async def test_periodic_notes_templates_fill_the_plugins_variables(make_vault: Callable[..., Path]) -> None:
    settings = {
        "activeCalendarSet": "Default",
        "calendarSets": [{
            "id": "Default",
            "day": {"enabled": True, "format": "YYYY-MM-DD", "folder": "Days", "templatePath": "T/Day.md"},
            "week": {"enabled": True, "format": "gggg-[W]ww", "folder": "Weeks", "templatePath": "T/Week.md"},
        }],
    }  # fmt: skip
    files = {"T/Day.md": DAY, "T/Week.md": WEEK, PERIODIC: json.dumps(settings),
             ".obsidian/app.json": json.dumps({"weekStart": "monday"})}  # fmt: skip
    async with started(make_vault(files)) as vg:
        await vg.ok("create_periodic_note", date="2026-03-01")
        assert vg.read("Days/2026-03-01.md") == "# 2026-03-01\n[[2026-02-28]] · [[2026-03-02]] · 2026-03-08 · Sunday\n"
        out = await vg.ok("append_to_periodic_note", period="weekly", date="2026-11-29", content="- done")
        assert out["path"] == "Weeks/2026-W48.md"  # monday weeks, English doy: 29 Nov closes W48
        assert vg.read("Weeks/2026-W48.md") == "## 2026-W48\n- 2026-11-23\n- 2026-11-29\n- done\n"


async def test_core_daily_notes_leave_the_plugins_variables_alone(make_vault: Callable[..., Path]) -> None:
    files = {"T/Day.md": DAY, ".obsidian/daily-notes.json": json.dumps({"template": "T/Day"})}
    async with started(make_vault(files)) as vg:
        await vg.ok("create_periodic_note", date="2026-03-01")
        text = vg.read("2026-03-01.md")
        assert "[[{{yesterday}}]]" in text and "Sunday" in text  # the core plugin fills date/time/title only


async def test_letters_that_are_no_token_in_a_plugin_variable_are_written_as_they_are(
    make_vault: Callable[..., Path],
) -> None:
    settings = {"daily": {"enabled": True, "format": "YYYY-MM-DD", "template": "T/Day"}}
    files = {"T/Day.md": "{{date+1d:YYYY bb}} {{date:YYYY-MM-DDTHH}}\n", PERIODIC: json.dumps(settings)}
    async with started(make_vault(files)) as vg:
        await vg.ok("create_periodic_note", date="2026-03-01")
        assert re.fullmatch(r"2026 bb 2026-03-01T\d\d\n", vg.read("2026-03-01.md"))  # as Moment writes them


async def test_a_disabled_plugins_settings_are_ignored(make_vault: Callable[..., Path]) -> None:
    """`community-plugins.json` lists the enabled plugins; Periodic Notes and Calendar settings
    count only while their plugin is on (without that file nothing says they are off)."""
    periodic = json.dumps({"daily": {"enabled": True, "format": "YYYY/MM/[Day] DD", "folder": "Journal"}})
    daily_core = json.dumps({"format": "DD-MM-YYYY", "folder": "Daily"})
    calendar = json.dumps({"weekStart": "monday"})
    base = {PERIODIC: periodic, ".obsidian/daily-notes.json": daily_core, CALENDAR: calendar}
    for enabled, day, week in (
        (None, "Journal/2026/11/Day 29.md", "2026-W48.md"),
        (["periodic-notes", "calendar"], "Journal/2026/11/Day 29.md", "2026-W48.md"),
        (["calendar"], "Daily/29-11-2026.md", "2026-W48.md"),
        ([], "Daily/29-11-2026.md", "2026-W49.md"),
    ):
        files = dict(base) if enabled is None else {**base, ".obsidian/community-plugins.json": json.dumps(enabled)}
        async with started(make_vault(files)) as vg:
            out = await vg.ok("get_periodic_note", period="daily", date="2026-11-29")
            assert out["path"] == day, enabled
            weekly = await vg.ok("get_periodic_note", period="weekly", date="2026-11-29")
            assert weekly["path"] == week, enabled


async def test_every_moment_locale_the_calendar_plugin_offers_has_its_own_week_rule(
    make_vault: Callable[..., Path],
) -> None:
    """The Calendar plugin's locale override lists every locale Moment holds (`moment.locales()`):
    Hungarian weeks start on Monday and week 1 holds 4 January (moment/locale/hu.js `week: {dow: 1,
    doy: 4}`), so Sunday 5 January 2025 closes 2025-W01; Belarusian's (1, 7) put 1 January 2026 in
    2026-W01. Only 33 locales had a rule: the others were counted as English weeks (2025-W02, and
    2025-W53 for Belarusian), and Kuwaiti Arabic's (0, 12) (week 1 holds 26 December: Moment counts
    it as January -5, so 28 December 2025 opens 2026-W02) answered internal_error."""
    cases = [
        ("hu", "2025-01-05", "2025-W01.md", "2024-12-30", "monday, week 1 holds 4 January (hu, calendar)"),
        ("be", "2026-01-01", "2026-W01.md", "2025-12-29", "monday, week 1 holds 1 January (be, calendar)"),
        ("vi", "2021-01-03", "2020-W53.md", "2020-12-28", "monday, week 1 holds 4 January (vi, calendar)"),
        ("ar-kw", "2025-12-28", "2026-W02.md", "2025-12-28", "sunday, week 1 holds 26 December (ar-kw, calendar)"),
        ("dv", "2026-01-04", "2026-W02.md", "2026-01-04", "sunday, week 1 holds 2 January (dv, calendar)"),
    ]
    for locale, day, path, start, rule in cases:
        files = {CALENDAR: json.dumps({"weekStart": "locale", "localeOverride": locale})}
        async with started(make_vault(files)) as vg:
            out = await vg.ok("get_periodic_note", period="weekly", date=day)
            assert (out["path"], out["period_start"], out["week_rule"]) == (path, start, rule), locale
