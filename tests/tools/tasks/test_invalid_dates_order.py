"""A written date that names no day (`📅 2026-02-30`) as the Tasks plugin treats it, through the
dispatcher, answered by the index alone (SQL) and over the cached task columns alike: it sorts first
(docs Queries/Sorting.md 'How dates are sorted': invalid dates first, then by day, then none), and it
is on no day, so `due before …` / `after` / `on` / `in` never keep it (the plugin compares an invalid
moment: isBefore/isAfter/isSame are false); `due date is invalid` finds it. Before session 76 it was
compared as text: '2026-02-30' sorted between 2026-02-28 and 2026-03-01 and was 'before 2026-03-01'."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, started

NOTE = "- [ ] late 📅 2026-03-05\n- [ ] bad 📅 2026-02-30\n- [ ] early 📅 2026-02-01\n- [ ] none\n"


async def kept(vg: Harness, query: str) -> list[str]:
    out = await vg.ok("tasks_filter", query=query, today="2026-02-15")
    return [i["description"] for i in out["items"]]


async def _check(vg: Harness) -> None:
    assert await kept(vg, "due before 2026-03-01") == ["early"]
    assert await kept(vg, "due on or after 2026-02-02") == ["late"]
    assert await kept(vg, "due in 2026-02") == ["early"]
    assert await kept(vg, "due date is invalid") == ["bad"]
    assert await kept(vg, "sort by due") == ["bad", "early", "late", "none"]
    assert await kept(vg, "sort by due reverse") == ["none", "late", "early", "bad"]


async def test_an_invalid_date_sorts_first_and_is_on_no_day(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"T.md": NOTE})) as vg:
        await vg.indexed()
        await _check(vg)  # the index alone answers (nothing cached yet)
        await vg.ok("tasks_filter", query="group by due")  # builds the task columns
        await _check(vg)  # now over the columns
        out = await vg.ok("tasks_filter", query="has due date\ngroup by due")
        assert [g["names"][0] for g in out["groups"]] == [
            "Invalid due date",
            "2026-02-01 Sunday",
            "2026-03-05 Thursday",
        ]


async def test_happens_ignores_an_invalid_date(make_vault: Callable[..., Path]) -> None:
    """`happens` is the earliest of start, scheduled and due that is a valid date (the plugin's
    Task.happens: 'Invalid dates are ignored'); it was the earliest as written, the invalid one."""
    note = "- [ ] mixed 🛫 2026-02-30 📅 2026-03-05\n- [ ] plain 📅 2026-03-01\n- [ ] only bad ⏳ 2026-02-31\n"
    async with started(make_vault({"T.md": note})) as vg:
        await vg.indexed()
        out = await vg.ok("tasks_filter", query="group by happens", today="2026-02-15")
        assert [(g["names"][0], g["count"]) for g in out["groups"]] == [
            ("2026-03-01 Sunday", 1), ("2026-03-05 Thursday", 1), ("No happens date", 1)]  # fmt: skip
        assert await kept(vg, "sort by happens") == ["plain", "mixed", "only bad"]
        query = "filter by function task.happens.moment?.isSame('2026-03-05') || false"
        assert await kept(vg, query) == ["mixed"]
        assert sorted(await kept(vg, "has happens date")) == ["mixed", "only bad", "plain"]  # any date written
