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
        assert [g["names"] for g in out["groups"]] == [["Projects"], ["(no group)"]]
        out = await vg.ok("tasks_filter", query="group by function task.tags.map((t) => t.slice(1).padStart(6, '_'))")
        assert {tuple(g["names"]) for g in out["groups"]} >= {("__work",), ("context/home",)}
        for bad, message in (
            ("filter by function task.tags.find('x')", "arrow function"),
            ("filter by function task.tags.map((t) => { return t })", "not part of the expressions"),
            ("filter by function const x = 1 return x", "expected ';'"),
            ("group by function task.description.padStart(1000000000, 'ab')", "10000 characters at most"),
        ):
            err = await vg.err("tasks_filter", "query_syntax_error", query=bad)
            assert message in err["message"], (bad, err["message"])
