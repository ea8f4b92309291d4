"""tasks_filter `… by function` expressions through the dispatch chain stay bounded and answer in
JavaScript's terms on hostile numbers and texts: numbers are doubles (a squared number overflows to
Infinity, not a 5,000-digit integer Python cannot print: internal_error before), toFixed of a large
number or of NaN answers as JavaScript does, NaN as an index is 0, a text doubled name after name
stops at [limits] max_value_bytes, and nested map loops stop at the query's time budget."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

FILES = {"T.md": "- [ ] one 📅 2023-06-11\n- [ ] two\n"}
SQUARED = "const a = 10000000000; " + " ".join(
    f"const {n} = {p}*{p};" for p, n in zip("abcdefghi", "bcdefghij", strict=True)
)


async def _groups(vg: object, expression: str) -> list[list[str]]:
    out = await vg.ok("tasks_filter", query=f"group by function {expression}", today="2023-06-11")  # type: ignore[attr-defined]
    return [g["names"] for g in out["groups"]]


@pytest.mark.covers("tasks_filter", "success")
async def test_numbers_are_doubles(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        assert await _groups(vg, "(100000000000000000000000000000).toFixed(2)") == [["1e+29"]]
        assert await _groups(vg, "(123456789012345678.5).toFixed(1)") == [["123456789012345680.0"]]
        assert await _groups(vg, "(0/0).toFixed(2)") == [["NaN"]]
        assert await _groups(vg, f"{SQUARED} return '' + j") == [["Infinity"]]
        assert await _groups(vg, f"{SQUARED} return j * 1.5 > 0 ? 'big' : 'small'") == [["big"]]
        assert await _groups(vg, "'' + 9007199254740993") == [["9007199254740992"]]
        assert await _groups(vg, "'abc'.slice(0/0) + 'abc'.substring(1, 1000000000000000000000)") == [["abcbc"]]
        assert await _groups(vg, "'abc'[0/0] ?? 'undefined'") == [["undefined"]]


@pytest.mark.covers("tasks_filter", "failure")
async def test_a_text_doubled_name_after_name_stops_at_the_size_limit(make_vault: Callable[..., Path]) -> None:
    names = "bcdefghijklmnopqrstuvwxyz"
    doubling = " ".join(f"const {n} = {p} + {p};" for p, n in zip("a" + names, names, strict=False))
    query = f"group by function const a = 'x'.padStart(1000, 'x'); {doubling} return z.length"
    async with started(make_vault(FILES), limits={"max_value_bytes": 100_000}) as vg:
        await vg.indexed()
        err = await vg.err("tasks_filter", "compute_budget_exceeded", query=query, today="2023-06-11")
        assert err["details"]["limit"] == "bytes"
        template = "group by function const a = 'x'.padStart(1000, 'x'); " + " ".join(
            f"const {n} = `${{{p}}}${{{p}}}`;" for p, n in zip("a" + names, names, strict=False)
        )
        err = await vg.err("tasks_filter", "compute_budget_exceeded", query=template + " return z", today="2023-06-11")
        assert err["details"]["limit"] == "bytes"
        held = "group by function const s = 'x'.padStart(1000, 'x'); return s.split('').map(c => s + c).length"
        err = await vg.err("tasks_filter", "compute_budget_exceeded", query=held, today="2023-06-11")
        assert err["details"]["limit"] == "bytes"  # 1,000 texts of 1,001 characters, each under the limit
        joined = "group by function 'x'.padStart(1000, 'x').split('').map(c => 'y'.padStart(1000, 'y')).join('')"
        err = await vg.err("tasks_filter", "compute_budget_exceeded", query=joined, today="2023-06-11")
        assert err["details"]["limit"] == "bytes"


@pytest.mark.covers("tasks_filter", "failure")
async def test_nested_loops_stop_at_the_query_s_time_budget(make_vault: Callable[..., Path]) -> None:
    loops = (
        "group by function 'x'.padStart(10000, 'x').split('').map(c => 'x'.padStart(10000, 'x').split('')"
        ".filter(d => d === c).length).length"
    )
    async with started(make_vault(FILES), search={"regex_budget_ms": 100}) as vg:
        await vg.indexed()
        err = await vg.err("tasks_filter", "compute_budget_exceeded", query=loops, today="2023-06-11")
        assert err["details"]["limit"] == "seconds"


@pytest.mark.covers("tasks_filter", "failure")
async def test_a_day_method_past_the_calendar_s_ends_is_a_query_error(make_vault: Callable[..., Path]) -> None:
    """startOf/endOf of a day at the calendar's ends (a task due 0001-01-01 or 9999-12-31) past it
    answer query_syntax_error naming the method, and its week(), format (any pattern) and month's
    end answer; each was internal_error (OverflowError, 'year 10000')."""
    files = {"T.md": "- [ ] old 📅 0001-01-01\n- [ ] late 📅 9999-12-31\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        for expression, method in (
            ("task.due.moment?.startOf('week')", "startOf"),
            ("task.due.moment?.endOf('isoWeek')", "endOf"),
        ):
            err = await vg.err("tasks_filter", "query_syntax_error", query=f"group by function {expression}")
            assert f".{method}() leaves the calendar" in err["message"], err
        assert await _groups(vg, "'' + task.due.moment?.startOf('month').date()") == [["1"]]
        assert await _groups(vg, "'' + task.due.moment?.endOf('quarter').date()") == [["31"]]
        # moment's en weeks run on past the calendar's ends: 9999-12-31 is in week 1 of 10000
        assert await _groups(vg, "task.due.format('gggg-ww YYYY-MM-DD') + ' ' + task.due.moment?.week()") == [
            ["0001-01 0001-01-01 1"], ["10000-01 9999-12-31 1"]]  # fmt: skip
