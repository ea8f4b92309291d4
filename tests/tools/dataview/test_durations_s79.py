"""Session 79 (V3): durations holding a fraction of a month or year, as Dataview computes them,
through the dispatch chain. Dataview normalises an inline field and the result of `d * n`, `d / n`,
`d1 + d2` with Luxon's `shiftToAll().normalize()` (binaryop.ts, util/normalize.ts): half a month
is carried into weeks, four to a month, so `1.5 months` is 1 month 2 weeks (44 days in Luxon's
casual units). vaultgate kept whole months only: 1.5 months was 1 month. Luxon's `DateTime.plus`
adds a written duration's whole months as months and the fraction as milliseconds (a month's at
30 days, a year's at 365): date(2024-01-10) + dur(1.5 months) is 2024-02-25. Every expected value
below was computed with Luxon 3.4.3 (Dataview's lockfile) under node."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started


def cells(out: dict[str, Any]) -> list[Any]:
    return [c["value"] for c in out["rows"][0]["cells"]]


async def test_a_fraction_of_a_month_is_carried_into_weeks(make_vault: Callable[..., Path]) -> None:
    """An inline `1.5 months`, `dur(3 months) / 2` and `dur(1 month) * 1.5` are each 1 month
    2 weeks: 44 days (they were 30), written '1 month, 2 weeks' (was '1 month'); the two results
    are equal, as Luxon's unit-by-unit `equals` finds them. dur(1.5 months) + dur(1 day) is 45
    days (was 46: the written half month had been dropped, then 15 days were not carried)."""
    files = {"T.md": "spent:: 1.5 months\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        query = (
            "TABLE WITHOUT ID spent.days, string(spent), (dur(3 months) / 2).days, string(dur(3 months) / 2), "
            "(dur(1 month) * 1.5).weeks, dur(3 months) / 2 = dur(1 month) * 1.5, "
            '(dur(1.5 months) + dur(1 day)).days, string(dur(1.5 months) + dur(1 day)) FROM "T"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == [
            44, "1 month, 2 weeks", 44, "1 month, 2 weeks", 6, True, 45, "1 month, 2 weeks, 1 day",
        ]  # fmt: skip
        rows = await vg.ok("search_dql", query='LIST FROM "T" WHERE spent > dur(40 days)')
        assert [r["path"] for r in rows["rows"]] == ["T.md"]


async def test_a_written_fraction_of_a_month_or_year_moves_a_date(make_vault: Callable[..., Path]) -> None:
    """date + dur(1.5 months): one calendar month, then 15 days (was one month: 2024-02-10);
    dur(1.5 years) a year, then 182.5 days; durations written in words as Luxon's toHuman writes
    them: a written dur keeps its units ('1 year, 6 months'), a fraction of a millisecond
    to three places ('2.333 milliseconds', was '2 milliseconds'), a zero span as ''
    (was '0 seconds')."""
    async with started(make_vault({"T.md": "x\n"})) as vg:
        await vg.indexed()
        query = (
            'TABLE WITHOUT ID dateformat(date(2024-01-10) + dur(1.5 months), "yyyy-MM-dd"), '
            'dateformat(date(2024-01-10) + dur(1.5 years), "yyyy-MM-dd"), string(dur(1.5 years)), '
            'string(dur(7 ms) / 3), "[" + (dur(1 day) - dur(1 day)) + "]" FROM "T"'
        )
        out = await vg.ok("search_dql", query=query)
        assert cells(out) == ["2024-02-25", "2025-07-11", "1 year, 6 months", "2.333 milliseconds", "[]"]


async def test_a_field_past_a_double_is_text_not_an_internal_error(make_vault: Callable[..., Path]) -> None:
    """An inline field of 400 nines and `months` made every query over its note answer
    internal_error (int of an infinite month count); it is now left as text, and the note's
    other fields read as before."""
    big = "9" * 400
    files = {"T.md": f"a:: {big} months\nb:: {big} days\nc:: 2 days\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("search_dql", query='TABLE WITHOUT ID typeof(a), typeof(b), c.days FROM "T"')
        assert cells(out) == ["string", "string", 2]
