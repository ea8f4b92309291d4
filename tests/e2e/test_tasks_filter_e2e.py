"""tasks_filter over real HTTP with the SDK client: a Tasks query block, its groups, urgency, an
expression, the plugin's global filter, and query errors naming their line and column."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

FILES = {
    "Todo.md": "# Todo\n\n- [ ] water plants 📅 2026-11-29 #home\n- [ ] file taxes [due:: 2027-04-15] ⏫\n"
    "- [x] buy bread 📅 2026-11-27 ✅ 2026-11-27\n",
    "Work/Plan.md": "## Next\n\n- [ ] ship it ⏳ 2026-12-01 #work\n",
}


async def test_tasks_filter_runs_a_tasks_block_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = "not done\n(happens on or before next week) OR (priority is high)\ngroup by root\nsort by due"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert [(i["group"], i["description"]) for i in out["items"]] == [
                (["/"], "water plants #home"), (["/"], "file taxes"), (["Work/"], "ship it #work")]  # fmt: skip
            assert out["groups"] == [{"names": ["/"], "count": 2}, {"names": ["Work/"], "count": 1}]
            bad = await error(client, "tasks_filter", query="not done\ndue before the weekend")
            assert bad["code"] == "query_syntax_error" and bad["details"]["line"] == 2


async def test_tasks_filter_reads_urgency_expressions_and_the_global_filter_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    files = {**FILES, "Todo.md": FILES["Todo.md"] + "- [ ] not a task, no filter word\n",
             ".obsidian/plugins/obsidian-tasks-plugin/data.json": '{"globalFilter": "#"}'}  # fmt: skip
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query="not done\nsort by urgency", today="2026-11-28")
            assert [i["description"] for i in out["items"]] == ["water plants #home", "ship it #work"]
            query = "filter by function task.tags.length > 0 && task.file.folder === 'Work/'"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert [i["description"] for i in out["items"]] == ["ship it #work"]
            bad = await error(client, "tasks_filter", query="not done\nfilter by function window.close()")
            assert bad["code"] == "query_syntax_error" and (bad["details"]["line"], bad["details"]["column"]) == (2, 20)


async def test_tasks_filter_finds_blocked_and_blocking_tasks_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    plan = "- [ ] design 🆔 d1\n- [ ] build ⛔ d1 🆔 b1\n- [x] research 🆔 r1 ✅ 2026-11-01\n- [ ] write ⛔ r1\n"
    async with e2e(make_vault({**FILES, "Plan.md": plan})) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query="is blocked", today="2026-11-28")
            assert [i["description"] for i in out["items"]] == ["build"]
            out = await ok(client, "tasks_filter", query="path does not include Work/\nis not blocking\nnot done")
            assert sorted(i["description"] for i in out["items"]) == [
                "build",
                "file taxes",
                "water plants #home",
                "write",
            ]
            out = await ok(client, "tasks_filter", query="id includes 1\nsort by description")
            assert [i["id"] for i in out["items"]] == ["b1", "d1", "r1"]


async def test_tasks_filter_groups_by_a_formatted_task_date_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = "not done\ngroup by function task.due.format('YYYY-MM', 'no due date')"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert out["groups"] == [
                {"names": ["2026-11"], "count": 1}, {"names": ["2027-04"], "count": 1},
                {"names": ["no due date"], "count": 1}]  # fmt: skip
            query = "filter by function task.due.moment?.isSame('2026-11-29', 'day') || false"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert [i["description"] for i in out["items"]] == ["water plants #home"]


async def test_tasks_filter_runs_the_plugin_s_documented_arrow_and_const_expressions_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = "filter by function task.tags.find( (tag) => tag.includes('ho') ) && true || false"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert [i["description"] for i in out["items"]] == ["water plants #home"]
            query = (
                "filter by function const d = task.due.moment; const wanted = '2026-12-01'; "
                "return d?.isSame(wanted, 'day') || (!d && task.heading?.includes('Next')) || false"
            )
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert [i["description"] for i in out["items"]] == ["ship it #work"]


async def test_tasks_filter_groups_by_urgency_and_backlink_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query="not done\ngroup by backlink", today="2026-11-28")
            assert [g["names"] for g in out["groups"]] == [["Plan > Next"], ["Todo"]]
            out = await ok(client, "tasks_filter", query="not done\ngroup by urgency", today="2026-11-28")
            scores = [float(g["names"][0]) for g in out["groups"]]
            assert scores == sorted(scores, reverse=True) and len(scores) == 3
            out = await ok(client, "tasks_filter", query="group by function task.priorityNameGroupText")
            assert [g["names"] for g in out["groups"]] == [["%%1%%High priority"], ["%%3%%Normal priority"]]
            query = "group by function task.tags.map((tag) => tag.split('#')[1])"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert [g["names"] for g in out["groups"]] == [["(no group)"], ["home"], ["work"]]  # '' first (s76)


async def test_tasks_filter_reads_status_names_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    settings = '{"statusSettings": {"customStatuses": [{"symbol": "!", "name": "Important", "type": "TODO"}]}}'
    files = {**FILES, "Flags.md": "- [!] call the bank\n- [?] unsure\n",
             ".obsidian/plugins/obsidian-tasks-plugin/data.json": settings}  # fmt: skip
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query="status.name includes import", today="2026-11-28")
            assert [i["description"] for i in out["items"]] == ["call the bank"]
            out = await ok(client, "tasks_filter", query="path includes Flags\ngroup by status.name")
            assert [g["names"] for g in out["groups"]] == [["Important"], ["Unknown"]]


async def test_tasks_filter_moment_methods_and_optional_chains_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = "filter by function task.due.moment?.isBetween('2026-11-01', '2026-11-30', 'day', '[]') || false"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert sorted(i["description"] for i in out["items"]) == ["buy bread", "water plants #home"]
            query = "filter by function task.due.moment?.startOf('isoWeek').isSame('2026-11-23') || false"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert sorted(i["description"] for i in out["items"]) == ["buy bread", "water plants #home"]


async def test_tasks_filter_runs_an_if_return_group_function_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    query = (
        "group by function const d = task.due; if (!d.moment) { return 'Undated'; } \\\n"
        "    if (d.moment.day() === 0) return d.format('[%%8%%]dddd'); {{! Sunday last }} \\\n"
        "    return d.format('[%%]d[%%]dddd');"
    )
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert [g["names"][0] for g in out["groups"]] == ["%%4%%Thursday", "%%5%%Friday", "%%8%%Sunday", "Undated"]


async def test_tasks_filter_calls_a_declared_label_function_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    query = (
        "group by function const label = (order, name) => `%%${order}%% ${name}`; \\\n"
        "    return task.due.moment ? label(1, task.due.format('YYYY')) : label(2, 'Undated');"
    )
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert [g["names"][0] for g in out["groups"]] == ["%%1%% 2026", "%%1%% 2027", "%%2%% Undated"]


async def test_tasks_filter_groups_by_due_category_and_iso_week_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(
                client, "tasks_filter", query="group by function task.due.category.groupText", today="2026-11-28"
            )
            assert [(g["names"][0], g["count"]) for g in out["groups"]] == [
                ("%%1%% Overdue", 1), ("%%3%% Future", 2), ("%%4%% Undated", 1)]  # fmt: skip
            query = "group by function task.due.format('YYYY [Week] WW', 'none')"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert [g["names"][0] for g in out["groups"]] == ["2026 Week 48", "2027 Week 15", "none"]


async def test_tasks_filter_expressions_are_bounded_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """A number past 2**53 is a double (ten squarings: Infinity, not internal_error), toFixed of a
    large number answers as JavaScript, and a text doubled name after name ends at [limits]
    max_value_bytes with compute_budget_exceeded (before: internal_error, and memory without bound)."""
    squared = "const a = 10000000000; " + " ".join(
        f"const {n} = {p}*{p};" for p, n in zip("abcdefghi", "bcdefghij", strict=True)
    )
    names = "bcdefghijklmnopqrstuvwxyz"
    doubling = " ".join(f"const {n} = {p} + {p};" for p, n in zip("a" + names, names, strict=False))
    async with e2e(make_vault(FILES), limits={"max_value_bytes": 100_000}) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = f"path includes Work\ngroup by function {squared} return '' + j"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert out["groups"] == [{"names": ["Infinity"], "count": 1}]
            query = "path includes Work\ngroup by function (100000000000000000000000000000).toFixed(2)"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert out["groups"] == [{"names": ["1e+29"], "count": 1}]
            query = f"group by function const a = 'x'.padStart(1000, 'x'); {doubling} return z.length"
            bad = await error(client, "tasks_filter", query=query, today="2026-11-28")
            assert bad["code"] == "compute_budget_exceeded" and bad["details"]["limit"] == "bytes"


async def test_tasks_filter_days_at_the_calendar_s_ends_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """A task due 0001-01-01 or 9999-12-31: its week and format answer, startOf('week') before the
    calendar is a query error naming the method (each was internal_error)."""
    files = {"T.md": "- [ ] old 📅 0001-01-01\n- [ ] late 📅 9999-12-31\n"}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = "group by function task.due.format('gggg-ww YYYY-MM-DD')"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert [g["names"] for g in out["groups"]] == [["0001-01 0001-01-01"], ["10000-01 9999-12-31"]]
            bad = await error(client, "tasks_filter", query="group by function task.due.moment?.startOf('week')")
            assert bad["code"] == "query_syntax_error" and ".startOf() leaves the calendar" in bad["message"]


async def test_tasks_filter_reads_braces_and_quotes_inside_a_template_substitution_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """`${'}'}` is read as JavaScript reads it (it was a query_syntax_error), and an open one is
    still a query_syntax_error at its column."""
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = "path includes Work\ngroup by function `${'}'}${task.tags.map(t => `{${t}}`).join('}')}`"
            out = await ok(client, "tasks_filter", query=query, today="2026-11-28")
            assert out["groups"] == [{"names": ["}{#work}"], "count": 1}]
            bad = await error(client, "tasks_filter", query="group by function `${'}'`")
            assert bad["code"] == "query_syntax_error" and bad["details"]["column"] == 19


async def test_tasks_filter_sorts_and_groups_by_id_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """`sort by id` / `group by id` (both were query_syntax_error): ids by the plugin's numeric
    comparison, a task without an id first in the sort and in `(no group)`, first too (the plugin's
    group named '', first by localeCompare; last before session 76), when grouping."""
    ids = "- [ ] nine 🆔 t9\n- [ ] eleven [id:: t11]\n- [ ] none\n"
    async with e2e(make_vault({"Ids.md": ids})) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query="sort by id")
            assert [i["description"] for i in out["items"]] == ["none", "nine", "eleven"]
            out = await ok(client, "tasks_filter", query="group by id")
            assert [g["names"][0] for g in out["groups"]] == ["(no group)", "t9", "t11"]


async def test_tasks_filter_reads_a_capital_x_as_the_tasks_plugin_does_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """`- [X]` is the Tasks plugin's `Unknown` status (type TODO) unless its settings name it, so
    `not done` keeps it (it was read as Done and left out); Dataview still counts it completed."""
    note = "- [X] capital\n- [x] small\n"
    async with e2e(make_vault({"T.md": note})) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query="not done\ngroup by status.name")
            assert out["groups"] == [{"names": ["Unknown"], "count": 1}]
            out = await ok(client, "search_dql", query='TASK FROM "T" WHERE completed')
            assert sorted(t["text"] for t in out["rows"]) == ["capital", "small"]
