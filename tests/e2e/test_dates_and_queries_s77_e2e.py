"""Session 77 (V1): periodic notes, Dataview and Bases answers as the plugins give them, over real
HTTP with the SDK client in both protocol eras."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

CALENDAR = ".obsidian/plugins/calendar/data.json"


async def test_weekly_notes_in_a_locale_the_calendar_plugin_offers(make_vault: Callable[..., Path], mode: str) -> None:
    """Hungarian weeks (moment/locale/hu.js: Monday, week 1 holds 4 January): Sunday 5 January
    2025 closes 2025-W01, as Obsidian names the note; it was 2025-W02 (English weeks)."""
    files = {CALENDAR: json.dumps({"weekStart": "locale", "localeOverride": "hu"}), "a.md": "a\n"}
    async with e2e(make_vault(files)) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        out = await ok(client, "get_periodic_note", period="weekly", date="2025-01-05")
        assert (out["path"], out["period_start"]) == ("2025-W01.md", "2024-12-30")
        assert out["week_rule"] == "monday, week 1 holds 4 January (hu, calendar)"


async def test_dql_regexes_and_dates_of_links_as_dataview_reads_them(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """A backslash escape other than a quote or a backslash stays in the string (Dataview's
    parse.ts escapeCharacter), so "\\d+" is a regex; date() of a link reads its display text
    first (functions.ts date); display(null) is ''."""
    files = {"Log 2024.md": "---\nwhen: '[[Meeting|2024-03-02]]'\n---\n", "Meeting.md": "notes\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        query = r'TABLE WITHOUT ID regexreplace(file.name, "\s\d+", "!"), date(when), display(null) WHERE when'
        out = await ok(client, "search_dql", query=query)
        assert [c["value"] for c in out["rows"][0]["cells"]] == ["Log!", "2024-03-02", ""]


async def test_dql_sorts_names_as_dataview_shows_them(make_vault: Callable[..., Path], mode: str) -> None:
    """Dataview compares strings with localeCompare (value.ts compareValue): apple, Banana,
    cherry, éclair, Zebra — not Banana, Zebra, apple, cherry, éclair (code points)."""
    names = ["Zebra", "cherry", "Banana", "éclair", "apple"]
    files = {f"S/{name}.md": "x\n" for name in names}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        out = await ok(client, "search_dql", query='LIST FROM "S" SORT file.name ASC')
        assert [r["path"] for r in out["rows"]] == [
            f"S/{n}.md" for n in ["apple", "Banana", "cherry", "éclair", "Zebra"]
        ]


async def test_dql_date_differences_in_calendar_units(make_vault: Callable[..., Path], mode: str) -> None:
    """date - date counts calendar years and months as Dataview's Luxon diff does, and reads as
    Dataview writes it: '1 month' from 31 December to 31 January, not '4 weeks, 3 days'."""
    files = {"Trip.md": "---\nfrom: 2023-12-31\nto: 2024-01-31\n---\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        out = await ok(client, "search_dql", query='TABLE WITHOUT ID string(to - from), (to - from).months FROM "Trip"')
        assert [c["value"] for c in out["rows"][0]["cells"]] == ["1 month", 1]


async def test_file_day_from_a_date_property_before_the_title(make_vault: Callable[..., Path], mode: str) -> None:
    """Dataview's findDate: a `date` property holding a date is the note's file.day before a date
    in its title."""
    files = {"20240105 minutes.md": "---\ndate: 2023-03-03\n---\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        out = await ok(client, "search_dql", query="TABLE WITHOUT ID file.day")
        assert [c["value"] for c in out["rows"][0]["cells"]] == ["2023-03-03"]


async def test_a_date_with_a_named_zone_is_a_date(make_vault: Callable[..., Path], mode: str) -> None:
    """Dataview's date grammar ends a date with a zone name in brackets (12:40:50 in Paris in
    August is 10:40:50 UTC); it was text."""
    files = {"Z.md": "---\nparis: '2021-08-15T12:40:50[Europe/Paris]'\n---\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        query = 'TABLE WITHOUT ID typeof(paris), paris = date(2021-08-15T10:40:50Z) FROM "Z"'
        out = await ok(client, "search_dql", query=query)
        assert [c["value"] for c in out["rows"][0]["cells"]] == ["date", True]


async def test_min_of_a_group_passes_over_notes_without_the_field(make_vault: Callable[..., Path], mode: str) -> None:
    """Dataview's min() passes a null over: the earliest due of a project whose notes do not all
    have one (it was null)."""
    files = {"P/a.md": "---\nproject: x\ndue: 2024-05-01\n---\n", "P/b.md": "---\nproject: x\n---\n"}
    async with e2e(make_vault(files)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await harness.indexed()
        out = await ok(client, "search_dql", query='TABLE min(rows.due) FROM "P" GROUP BY project')
        assert [c["value"] for c in out["rows"][0]["cells"]] == ["2024-05-01"]
