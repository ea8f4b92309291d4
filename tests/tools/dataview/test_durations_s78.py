"""Session 78 (V2): a duration's parts and `durationformat` as Dataview answers them, through the
dispatch chain. Dataview (context.ts) reads `d.days` as Luxon's `d.shiftTo("days").days` — the
whole span in days, a month counting 30 — and `durationformat` is Luxon's `toFormat`; a field's
duration is normalised (parse.ts atomInlineField), a `dur(...)` literal keeps its units."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started


def cells(out: dict[str, Any]) -> list[Any]:
    return [c["value"] for c in out["rows"][0]["cells"]]


async def test_days_between_two_dates_count_the_whole_span(make_vault: Callable[..., Path]) -> None:
    """`(due - file.day).days` over a month boundary: the diff is 1 month 4 days, 34 days in
    Luxon's casual units; it was 4 (the days left over after the month). A field of 90 minutes
    has .hours 1.5 and .minutes 90 (they were 1 and 30), and dur(36 hours).days is 1.5 (was 1)."""
    files = {"2024-02-01.md": "---\ndue: 2024-03-05\n---\nspent:: 90 minutes\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        query = (
            "TABLE WITHOUT ID (due - file.day).days, (due - file.day).months, spent.hours, spent.minutes, "
            'dur(36 hours).days, dur(46 days).days, dur(1 week).week, dur(1 week).weeks FROM "2024-02-01"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == [34, 1.1333333333333333, 1.5, 90, 1.5, 46, None, 1]
        rows = await vg.ok("search_dql", query="LIST WHERE (due - file.day).days > 30")
        assert [r["path"] for r in rows["rows"]] == ["2024-02-01.md"]


async def test_durationformat_carries_whole_units_up_as_luxon_does(make_vault: Callable[..., Path]) -> None:
    """Dataview's docs: durationformat(dur("365 days 5 hours 49 minutes"), "yyyy ddd hh mm ss") is
    "0001 000 05 49 00"; it was "0000 365 05 49 00" (days never rolled into years). 46 days as
    months and days is "1m 16d" from a literal, "1m 18d" from a field (normalised first: 1 month,
    2 weeks, 4 days) — an inline field's; a frontmatter one keeps its units as written
    (markdown-file.ts parseFrontmatter): "1m 16d". The answer was "0m 46d" for all three."""
    files = {"T.md": "---\nlength: 46 days\n---\ninline:: 46 days\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        query = (
            'TABLE WITHOUT ID durationformat(dur("365 days 5 hours 49 minutes"), "yyyy ddd hh mm ss"), '
            "durationformat(dur(46 days), \"M'm' d'd'\"), durationformat(length, \"M'm' d'd'\"), "
            "durationformat(inline, \"M'm' d'd'\") FROM \"T\""
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == ["0001 000 05 49 00", "1m 16d", "1m 16d", "1m 18d"]
