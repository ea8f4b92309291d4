"""tasks_filter expressions over a task's dates as the Tasks plugin's TasksDate gives them, through
the dispatch chain: `task.due.format(pattern, fallback)`, `formatAsDate(fallback)`,
`formatAsDateAndTime(fallback)`, moment's `[text]` escapes, and a moment compared with a day
written as text (the plugin's documented examples `group by function task.due.format("YYYY-MM")`
and `taskDate?.isSame('2023-06-11', 'day')`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started

NOTE = """# Dates

- [ ] pay rent 📅 2026-01-10 ⏳ 2026-01-08
- [ ] plan trip 📅 2026-02-01
- [ ] tidy desk
"""


async def groups(vg: Harness, query: str) -> list[tuple[list[str], int]]:
    out = await vg.ok("tasks_filter", query=query, today="2026-01-20", limit=50)
    return [(g["names"], g["count"]) for g in out["groups"]]


async def kept(vg: Harness, query: str) -> list[str]:
    out = await vg.ok("tasks_filter", query=query + "\nsort by description", today="2026-01-05", limit=50)
    return [i["description"] for i in out["items"]]


@pytest.mark.covers("tasks_filter", "success")
async def test_task_dates_format_as_the_plugin_s_tasks_date(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Dates.md": NOTE})) as vg:
        await vg.indexed()
        assert await groups(vg, "group by function task.due.format('YYYY-MM')") == [
            (["(no group)"], 1), (["2026-01"], 1), (["2026-02"], 1)]  # fmt: skip  # '' first: localeCompare (s76)
        assert await groups(vg, "group by function task.due.format('YYYY[%%]-MM[%%] MMM', 'no due date')") == [
            (["2026%%-01%% Jan"], 1), (["2026%%-02%% Feb"], 1), (["no due date"], 1)]  # fmt: skip
        days = await groups(vg, "group by function task.due.format('dddd Do MMMM YY, [Q]Q')")
        assert days == [(["(no group)"], 1), (["Saturday 10th January 26, Q1"], 1), (["Sunday 1st February 26, Q1"], 1)]
        weeks = await groups(vg, "group by function task.due.format('YYYY [Week] WW, gggg-[W]ww, [day] d E DDDD')")
        assert weeks == [
            (["(no group)"], 1), (["2026 Week 02, 2026-W02, day 6 6 010"], 1),
            (["2026 Week 05, 2026-W06, day 0 7 032"], 1)]  # fmt: skip
        assert await groups(vg, "group by function task.due.category.groupText") == [
            (["%%1%% Overdue"], 1), (["%%3%% Future"], 1), (["%%4%% Undated"], 1)]  # fmt: skip
        out = await vg.ok("tasks_filter", query="group by function task.due.category.name", today="2026-01-10")
        assert [g["names"] for g in out["groups"]] == [["Future"], ["Today"], ["Undated"]]
        assert await kept(vg, "filter by function task.due.category.sortOrder === 4") == ["tidy desk"]
        assert await kept(vg, "filter by function task.due.formatAsDate('none') === 'none'") == ["tidy desk"]
        assert await kept(vg, "filter by function task.scheduled.formatAsDateAndTime() === '2026-01-08 00:00'") == [
            "pay rent"
        ]
        assert await kept(vg, "filter by function task.due.moment?.isSame('2026-01-10', 'day') || false") == [
            "pay rent"
        ]
        assert await kept(vg, "filter by function task.due.moment?.isBefore('2026-02-01') || false") == ["pay rent"]
        between = (
            "filter by function task.due.moment?.isBetween(moment('2026-01-01'), '2026-01-31', 'day', '[]') || false"
        )
        assert await kept(vg, between) == ["pay rent"]
        assert await kept(vg, "filter by function task.due.moment?.day() === 6 || false") == ["pay rent"]  # Saturday
        weekday = "group by function task.due.moment ? task.due.moment.isoWeekday() + '/' + task.due.moment.week() : ''"
        assert [g[0] for g in await groups(vg, weekday)] == [["(no group)"], ["6/2"], ["7/6"]]
        month_end = "filter by function task.due.moment?.isSame(task.due.moment.endOf('month')) || false"
        assert await kept(vg, month_end) == []
        week_start = "filter by function task.due.moment?.startOf('isoWeek').isSame('2026-01-05') || false"
        assert await kept(vg, week_start) == ["pay rent"]
        bad = await vg.err("tasks_filter", "query_syntax_error", query="group by function task.due.format()")
        assert "takes a format" in bad["message"]
