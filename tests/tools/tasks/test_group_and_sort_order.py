"""Group and sort orders as the Tasks plugin gives them, through the dispatcher (session 76's user pass).

The plugin orders every group by its name with `localeCompare(…, {numeric: true})`
(src/Query/Group/TaskGroups.ts; its tests: StatusField ['Done', 'Todo'], RecurringField
['Not Recurring', 'Recurring'], TagsField ['(No tags)', '#tag1', …], HeadingField ['(No heading)', …],
RecurrenceField 'every 3 weeks…' before 'every 4 months…'); a `group by function` value that is a
number but not whole is written with 5 decimals, and null / '' / [] is the group named '' (first).
`sort by function` (docs Scripting/Custom Sorting.md): a task's date sorts as `sort by due`, null
after dates and before everything else, `true` before `false`, texts by localeCompare with numbers.
Text sorts (`sort by description`, path, filename, heading, tag, status.name) compare with
localeCompare too; `sort by description` without a leading link's brackets or bold/italic marks.
Before: Todo before Done, Recurring first, `(No heading)`/`(No tags)`/`(no group)` last, '11.2'
before '3.9', `sort by function task.due` no order at all, false before true, null last, upper case
before lower case ('Zed' before 'apple'), 'Note 10' before 'Note 9'."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, started

FILES = {
    "Note 10.md": "- [ ] Task 10 📅 2026-12-09\n- [x] apple ✅ 2026-12-01 🔁 every 10 days\n",
    "Note 9.md": "# Work\n\n- [ ] Task 9 #home 🔁 every 3 weeks\n- [ ] **Zed** bold ⏫\n- [ ] [[Link|alpha]] linked\n",
}


async def names(vg: Harness, query: str) -> list[str]:
    out = await vg.ok("tasks_filter", query=query, today="2026-12-02")
    return [g["names"][0] for g in out["groups"]] if "group by" in query else [i["description"] for i in out["items"]]


async def test_groups_in_the_plugin_s_order(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        assert await names(vg, "group by status") == ["Done", "Todo"]
        assert await names(vg, "group by recurring") == ["Not Recurring", "Recurring"]
        assert await names(vg, "group by heading") == ["(No heading)", "Work"]
        assert await names(vg, "group by heading reverse") == ["Work", "(No heading)"]
        assert await names(vg, "group by tags") == ["(No tags)", "#home"]
        assert await names(vg, "is recurring\ngroup by recurrence") == ["every 3 weeks", "every 10 days"]
        assert await names(vg, "group by filename") == ["Note 9", "Note 10"]
        assert await names(vg, "group by function task.due.moment ? 'dated' : null") == ["(no group)", "dated"]
        urgency = await names(vg, "not done\ngroup by function task.urgency")
        assert urgency == ["1.95000", "6", "7.55000"]  # not whole: 5 decimals; by value


async def test_sort_by_function_and_text_sorts_in_the_plugin_s_order(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        assert (await names(vg, "sort by function task.due"))[:1] == ["Task 10"]  # the one dated task first
        assert (await names(vg, "sort by function task.description.includes('a')"))[-1] == "**Zed** bold"  # true first
        nulls = "sort by function task.isRecurring ? task.description : null"
        assert (await names(vg, nulls))[-2:] == ["apple", "Task 9 #home"]  # null first, then the texts
        assert await names(vg, "sort by description") == [
            "[[Link|alpha]] linked", "apple", "Task 9 #home", "Task 10", "**Zed** bold"]  # fmt: skip
        in_nine = {"Task 9 #home", "**Zed** bold", "[[Link|alpha]] linked"}
        assert set((await names(vg, "sort by path"))[:3]) == in_nine  # Note 9 before Note 10
        assert (await names(vg, "sort by heading"))[:2] == ["Task 10", "apple"]  # no heading: '' first


async def test_sort_by_the_nth_tag(make_vault: Callable[..., Path]) -> None:
    """`sort by tag 2` (docs Queries/Sorting.md: 'sort by the second tag found in the description';
    the plugin's regex `^sort by tag( reverse)?[\\s]*(\\d+)?`): tasks with a 2nd tag by it (numbers by
    value), then those with one tag, then those with none. It was query_syntax_error."""
    files = {"T.md": "- [ ] two #a #zz\n- [ ] one #c\n- [ ] nine #b #c9\n- [ ] ten #b #c10\n- [ ] none\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        assert await names(vg, "sort by tag 2") == ["nine #b #c9", "ten #b #c10", "two #a #zz", "one #c", "none"]
        assert (await names(vg, "sort by tag reverse 2"))[:2] == ["none", "one #c"]
        assert await names(vg, "sort by tag 1") == await names(vg, "sort by tag")
        err = await vg.err("tasks_filter", "query_syntax_error", query="sort by tag 0")
        assert "sort by takes one of" in err["message"]
