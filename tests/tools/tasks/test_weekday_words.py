"""Weekdays in query dates as the Tasks plugin reads them, through the dispatcher. The plugin's dates
go through chrono-node 2.3.9 (package.json; src/DateTime/DateParser.ts, forwardDate off in filters),
whose weeks run Sunday to Saturday (src/calculation/weeks.ts): `this friday` is this week's Friday,
`next friday` the next week's, `last friday` the week before's, `friday` alone the closest Friday
(docs Queries/Filters.md: on a Wednesday `tuesday` is yesterday). Before session 76 `next friday` on
a Wednesday was the coming Friday (2 days on, not 9), `this sunday` the coming Sunday (chrono: the
one before), `wednesday` on a Sunday the Wednesday before (chrono: the closest, after), `last friday`
on a Saturday the day before (chrono: 8 days before)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started


@pytest.mark.parametrize(
    ("today", "phrase", "day"),
    [
        ("2026-12-02", "next friday", "2026-12-11"),  # a Wednesday
        ("2026-12-02", "this friday", "2026-12-04"),
        ("2026-12-02", "friday", "2026-12-04"),
        ("2026-12-02", "tuesday", "2026-12-01"),  # the docs' example: yesterday
        ("2026-12-02", "next tuesday", "2026-12-08"),
        ("2026-12-02", "this sunday", "2026-11-29"),
        ("2026-12-06", "wednesday", "2026-12-09"),  # a Sunday
        ("2026-12-05", "last friday", "2026-11-27"),  # a Saturday
    ],
)
async def test_weekdays_as_chrono_reads_them(
    make_vault: Callable[..., Path], today: str, phrase: str, day: str
) -> None:
    async with started(make_vault({"T.md": f"- [ ] the one 📅 {day}\n- [ ] other 📅 2026-12-20\n"})) as vg:
        await vg.indexed()
        out = await vg.ok("tasks_filter", query=f"explain\ndue on {phrase}", today=today)
        assert out["explain"] == [f"due date on {day}"]
        assert [i["description"] for i in out["items"]] == ["the one"]
