"""tasks_filter through the dispatch chain runs the Tasks plugin's documented `… by function`
examples that use arrow functions, `const … return`, `??` and the string, array and number
methods the docs call (`find`, `split`, `slice`, `pop`, `toFixed`, `toLocaleLowerCase`, …)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started

FILES = {
    "Work/Projects/Plan.md": "# Plan\n\n- [ ] ship #context/home/ground-floor 📅 2023-06-11\n"
    "- [ ] call Ann #context/home\n- [ ] draft 📅 2023-06-12 #work\n",
    "Inbox.md": "## 2023-06-11\n\n- [ ] no date under a dated heading\n- [ ] plain\n",
}


async def kept(vg: Harness, query: str) -> set[str]:
    out = await vg.ok("tasks_filter", query=query, today="2023-06-11", limit=50)
    return {i["description"].split(" #")[0] for i in out["items"]}


@pytest.mark.covers("tasks_filter", "success")
async def test_the_plugin_s_documented_expressions_run(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        nested = "filter by function task.tags.find( (tag) => tag.includes('/') ) && true || false"
        assert await kept(vg, nested) == {"ship", "call Ann"}
        deep = "filter by function task.tags.find( (tag) => tag.split('/').length >= 3 ) && true || false"
        assert await kept(vg, deep) == {"ship"}
        heading = (
            "filter by function const taskDate = task.due.moment; const wanted = '2023-06-11'; "
            "return taskDate?.isSame(wanted, 'day') || ( !taskDate && task.heading?.includes(wanted)) || false"
        )
        assert await kept(vg, heading) == {"ship", "no date under a dated heading", "plain"}
        today = (
            "filter by function const taskDate = task.due.moment; const now = moment(); "
            "return taskDate?.isSame(now, 'day') || ( !taskDate && task.heading?.includes(now.format('YYYY-MM-DD')) ) "
            "|| false"
        )
        assert await kept(vg, today) == {"ship", "no date under a dated heading", "plain"}
        either = (
            "filter by function task.heading?.includes('#context/home') || "
            "task.tags.find( (tag) => tag === '#context/home' ) && true || false"
        )
        assert await kept(vg, either) == {"call Ann"}
        path = "filter by function task.file.path.toLocaleLowerCase() === 'WORK/PROJECTS/PLAN.MD'.toLocaleLowerCase()"
        assert await kept(vg, path) == {"ship", "call Ann", "draft"}
        assert await kept(vg, "filter by function task.urgency.toFixed(2) === 1.95.toFixed(2)") == {
            "call Ann", "no date under a dated heading", "plain"}  # fmt: skip
        assert await kept(vg, "filter by function (task.due.moment ?? moment('2000-01-01')).isAfter(moment())") == {
            "draft"
        }
        assert await kept(vg, "filter by function task.tags.some(t => t.startsWith('#work'))") == {"draft"}
        assert await kept(vg, "filter by function task.tags.filter((t, i) => i > 0).length > 0") == set()
        out = await vg.ok("tasks_filter", query="group by function task.file.folder.slice(0, -1).split('/').pop()")
        assert [g["names"] for g in out["groups"]] == [["(no group)"], ["Projects"]]  # '' first (s76)
        out = await vg.ok("tasks_filter", query="group by function task.tags.map((t) => t.slice(1).padStart(6, '_'))")
        assert {tuple(g["names"]) for g in out["groups"]} >= {("__work",), ("context/home",)}
        for bad, message in (
            ("filter by function task.tags.find('x')", "arrow function"),
            ("filter by function task.tags.map((t) => { return t })", "not a block"),
            ("filter by function const x = 1 return x", "expected ';'"),
            ("group by function task.description.padStart(1000000000, 'ab')", "10000 characters at most"),
            ("filter by function task.file['path']", "with '.', not '[ ]'"),
            ("filter by function task.tags['length']", "read by its number"),
        ):
            err = await vg.err("tasks_filter", "query_syntax_error", query=bad)
            assert message in err["message"], (bad, err["message"])


async def test_groups_by_urgency_recurrence_backlink_and_the_docs_tag_levels(make_vault: Callable[..., Path]) -> None:
    files = {**FILES, "Rec.md": "- [ ] water 🔁 every week 📅 2023-06-10\n- [ ] pay 🔁 every month 📅 2023-06-20 ⏫\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()

        async def groups(query: str) -> list[tuple[str, ...]]:
            out = await vg.ok("tasks_filter", query=query, today="2023-06-11", limit=50)
            return [tuple(g["names"]) for g in out["groups"]]

        # groups named by the urgency score to 2 decimals, the most urgent first
        scores = [float(g[0]) for g in await groups("group by urgency")]
        assert scores == sorted(scores, reverse=True) and len(scores) == len(set(scores)) >= 3
        assert scores[:4] == [11.21, 10.75, 10.69, 10.29]  # water: 1 day late; ship: due today; pay: ⏫ in 9 days
        assert all(len(g[0].split(".")[1]) == 2 for g in await groups("group by urgency"))
        assert await groups("group by urgency reverse") == list(reversed(await groups("group by urgency")))
        assert await groups("path includes Rec\ngroup by recurrence") == [("every month",), ("every week",)]
        assert ("None",) in await groups("group by recurrence")
        assert await groups("path includes Inbox\ngroup by backlink") == [("Inbox > 2023-06-11",)]
        assert await groups("path includes Plan\ngroup by backlink") == [("Plan",)]  # the heading adds nothing
        levels = (
            "group by function task.tags.map( (tag) => tag.split('/')[1] ? tag.split('/').slice(0, 2).join('/') : '')"
        )
        assert await groups("path includes Plan\n" + levels) == [("(no group)",), ("#context/home",)]
        first = "group by function task.tags.map( (tag) => tag.split('/')[0].replace('#', '') )"
        assert await groups("path includes Plan\n" + first) == [("context",), ("work",)]
        with_heading = (
            "group by function task.file.filenameWithoutExtension + (task.hasHeading ? (' > ' + task.heading) : '')"
        )
        assert await groups(with_heading) == [("Inbox > 2023-06-11",), ("Plan > Plan",), ("Rec",)]
        assert await groups("path includes Rec\ngroup by function task.priorityNameGroupText") == [
            ("%%1%%High priority",), ("%%3%%Normal priority",)]  # fmt: skip
        assert await groups("group by function task.description[0]") == [
            ("c",), ("d",), ("n",), ("p",), ("s",), ("w",)]  # fmt: skip


WEEKDAYS = """group by function                                   \\
    const date = task.due;                          \\
    if (!date.moment) {                             \\
        return "Undated";                           \\
    }                                               \\
    if (date.moment.day() === 0) {                  \\
        {{! Put the Sunday group last: }}           \\
        return date.format("[%%][8][%%]dddd");      \\
    }                                               \\
    return date.format("[%%]d[%%]dddd");
"""
CATEGORIES = """group by function \\
    const date = task.due.moment; \\
    return \\
        (!date)                           ? '%%4%% Undated' :      \\
        date.isBefore(moment(), 'day')    ? '%%1%% Overdue' :      \\
        date.isSame(moment(), 'day')      ? '%%2%% Today'   :      \\
        '%%3%% Future';
"""


async def test_the_docs_multi_line_group_functions_run(make_vault: Callable[..., Path]) -> None:
    """The Grouping page's weekday example (if/return, braces, a {{! comment }}, continuation lines)
    and its hand-written due-date categories, on tasks due Sunday 11, Monday 12 June 2023 and none."""
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        out = await vg.ok("tasks_filter", query=WEEKDAYS, today="2023-06-11")
        assert [(g["names"][0], g["count"]) for g in out["groups"]] == [
            ("%%1%%Monday", 1), ("%%8%%Sunday", 1), ("Undated", 3)]  # fmt: skip
        out = await vg.ok("tasks_filter", query=CATEGORIES, today="2023-06-11")
        same = await vg.ok("tasks_filter", query="group by function task.due.category.groupText", today="2023-06-11")
        assert out["groups"] == same["groups"] == [
            {"names": ["%%2%% Today"], "count": 1}, {"names": ["%%3%% Future"], "count": 1},
            {"names": ["%%4%% Undated"], "count": 3}]  # fmt: skip
        err = await vg.err("tasks_filter", "query_syntax_error", query="group by function if (true) { 1 }")
        assert "expected 'return'" in err["message"]


LABELS = """group by function \\
    const date = task.due.moment; \\
    const tomorrow  = moment().add(1,'days'); \\
    const now = moment(); \\
    const label = (order, name) => `%%${order}%% ==${name}==`; \\
    if (!date)                           return label(5, 'Undated'); \\
    if (date.isBefore(now, 'day'))       return label(1, 'Overdue'); \\
    if (date.isSame(now, 'day'))         return label(2, 'Today'); \\
    if (date.isSame(tomorrow, 'day'))    return label(3, 'Tomorrow'); \\
    return label(4, 'Future');
"""


async def test_the_docs_label_function_with_a_template_string_runs(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        out = await vg.ok("tasks_filter", query=LABELS, today="2023-06-11")
        assert [(g["names"][0], g["count"]) for g in out["groups"]] == [
            ("%%2%% ==Today==", 1), ("%%3%% ==Tomorrow==", 1), ("%%5%% ==Undated==", 3)]  # fmt: skip
        out = await vg.ok("tasks_filter", query="group by function `${task.priorityName}: ${task.tags.length} tag(s)`")
        assert {g["names"][0] for g in out["groups"]} == {"Normal: 0 tag(s)", "Normal: 1 tag(s)"}
        for bad, message in (
            ("group by function `${task.description`", "not closed"),
            ("group by function const f = 1; return f(2)", "not a function"),
            ("group by function `${window}`", "not a name this server knows"),
        ):
            err = await vg.err("tasks_filter", "query_syntax_error", query=bad)
            assert message in err["message"], (bad, err["message"])
