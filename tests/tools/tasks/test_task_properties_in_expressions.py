"""Task properties the plugin documents for `filter|sort|group by function` (docs/Scripting/Task
Properties.md, Custom Grouping.md), through the dispatcher. Before session 74 these lines were
query_syntax_error: `task.lineNumber` (0-based), `task.onCompletion` ('delete' / 'keep' / ''),
`task.descriptionWithoutTags` (the plugin's hashtag rule), `task.file.pathWithoutExtension`,
`task.status.typeGroupText` (silently the status symbol before: '%%2%%TODO' now) and array
literals (`['/', 'x'].includes(task.status.symbol)`, `group by function ['hello', 'world']`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, indexed_before, started

NOTE = (
    "# Work\n\n- [ ] call Ann #phone #work 🏁 delete 📅 2026-12-03\n- [/] draft plan\n- [x] done thing ✅ 2026-12-01\n"
)


async def described(vg: Harness, query: str) -> list[str]:
    out = await vg.ok("tasks_filter", query=query, today="2026-12-02")
    return [i["description"] for i in out["items"]]


async def test_documented_task_properties(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Work/Plan.md": NOTE})) as vg:
        await vg.indexed()
        call = ["call Ann #phone #work"]
        assert await described(vg, "filter by function task.lineNumber === 2") == call
        assert await described(vg, "filter by function task.onCompletion === 'delete'") == call
        assert await described(vg, "filter by function task.descriptionWithoutTags === 'call Ann'") == call
        assert len(await described(vg, "filter by function task.file.pathWithoutExtension === 'Work/Plan'")) == 3
        assert await described(vg, "filter by function ['/', 'x'].includes(task.status.symbol)") == [
            "draft plan", "done thing",
        ]  # fmt: skip
        out = await vg.ok("tasks_filter", query="group by function task.status.typeGroupText", today="2026-12-02")
        assert [g["names"] for g in out["groups"]] == [["%%1%%IN_PROGRESS"], ["%%2%%TODO"], ["%%4%%DONE"]]
        out = await vg.ok("tasks_filter", query="group by function ['hello', 'world']", today="2026-12-02")
        assert [(g["names"], g["count"]) for g in out["groups"]] == [(["hello"], 3), (["world"], 3)]


MARKERS = (
    "# M\n\n  * [ ] water 🔁 every week (then rest) 📅 2026-12-01\n1. [x] fed 🔁 every day ✅ 2026-12-01\n"
    "> - [ ] quoted\n"
)


async def _original_markdown_read(vg: Harness) -> None:
    query = "group by function task.listMarker + ' ' + task.originalMarkdown"
    out = await vg.ok("tasks_filter", query=query, today="2026-12-02")
    assert [g["names"] for g in out["groups"]] == [  # localeCompare: '-' before '*' (s76)
        ["- > - [ ] quoted"], ["* " + MARKERS.splitlines()[2]], ["1. 1. [x] fed 🔁 every day ✅ 2026-12-01"]
    ]  # fmt: skip
    # the plugin's recipe for a 🔁 it does not read (docs How To/Find tasks with invalid data)
    query = "filter by function (!task.isRecurring) && task.originalMarkdown.includes('🔁')"
    assert await described(vg, query) == ["water 🔁 every week (then rest)"]


async def test_original_markdown_and_list_marker(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"M.md": MARKERS})) as vg:
        await vg.indexed()
        await _original_markdown_read(vg)


async def test_an_index_built_before_reads_the_task_lines_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"M.md": MARKERS})
    await indexed_before(root, 37, "ALTER TABLE tasks DROP COLUMN head")  # as before 0037: no head kept
    async with started(root) as vg:
        await vg.indexed()
        await _original_markdown_read(vg)


async def test_is_blocked_among_all_tasks(make_vault: Callable[..., Path]) -> None:
    """`task.isBlocked(query.allTasks)` / `task.isBlocking(query.allTasks)` (docs Quick Reference,
    Task Properties): as `is blocked` / `is blocking`, among every task, not only those the query's
    filters keep (the blocker is in another note here). Refused before ('.isBlocked() is not a method')."""
    files = {
        "Deps.md": "- [ ] review ⛔ w1\n- [ ] after old ⛔ o1\n- [ ] free\n",
        "Other.md": "- [ ] write 🆔 w1\n- [x] old 🆔 o1\n",
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        query = "path includes Deps\nfilter by function task.isBlocked(query.allTasks)"
        assert await described(vg, query) == ["review"]
        assert await described(vg, "filter by function task.isBlocking(query.allTasks)") == ["write"]
        query = "path includes Deps\ngroup by function task.isBlocked(query.allTasks) ? 'blocked' : 'free'"
        out = await vg.ok("tasks_filter", query=query, today="2026-12-02")
        assert [(g["names"], g["count"]) for g in out["groups"]] == [(["blocked"], 1), (["free"], 2)]
        failed = await vg.call("tasks_filter", query="filter by function task.isBlocked('x')", today="2026-12-02")
        assert failed.is_error and failed.structured["error"]["code"] == "query_syntax_error"


async def test_objects_read_as_text_as_javascript_writes_them(make_vault: Callable[..., Path]) -> None:
    """A task's date, status or file object as text is '[object Object]' (a TasksDate has no
    toString), a task its line's text (Task.toString); before, a group name was Python's
    '<…_Obj object at 0x…>'. query.allTasks anywhere but as isBlocked's / isBlocking's argument is
    refused (it was an object of this server in a group name)."""
    async with started(make_vault({"A.md": "- [ ] write 📅 2026-12-05\n"})) as vg:
        await vg.indexed()
        for query, names in (
            ("group by function task.due", [["[object Object]"]]),
            ("group by function 'x' + task.status", [["x[object Object]"]]),
            ("group by function [task]", [["write 📅 2026-12-05"]]),
        ):
            out = await vg.ok("tasks_filter", query=query, today="2026-12-02")
            assert [g["names"] for g in out["groups"]] == names, query
        failed = await vg.call("tasks_filter", query="group by function query.allTasks", today="2026-12-02")
        assert failed.is_error and failed.structured["error"]["code"] == "query_syntax_error"
