"""tasks_filter through the full dispatch chain: the Tasks plugin's query language over the
index, with relative dates counted from a fixed `today` (Saturday 2026-11-28: this week runs
Monday 2026-11-23 to Sunday 2026-11-29, next week 2026-11-30 to 2026-12-06)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

TODAY = "2026-11-28"
WORK = """# Work

- [ ] write report 📅 2026-11-30 ⏫ #proj/alpha
- [x] send invoice 📅 2026-11-01 ✅ 2026-11-02
- [/] draft plan [due:: 2026-12-05] [priority:: high]
- [-] old idea ❌ 2026-10-01

## Later

- [ ] call Ann ⏳ 2026-12-01 #inbox
- [ ] read book 🛫 2026-12-10 🔽
- [ ] stretch 🔁 every day 📅 2026-11-28 🔺
"""
INBOX = "# Inbox\n\n- [ ] buy milk 📅 2026-11-27 #shop\n- [ ] no dates here\n"
FILES = {"Work.md": WORK, "Inbox/Capture.md": INBOX, "Private/Secret.md": "- [ ] hidden 📅 2026-11-29 #inbox\n"}


async def names(vg: Harness, query: str, **args: Any) -> list[str]:
    out = await vg.ok("tasks_filter", query=query, today=TODAY, limit=500, **args)
    return [i["description"].split(" #")[0] for i in out["items"]]


async def same(vg: Harness, query: str, expected: set[str]) -> None:
    assert set(await names(vg, query)) == expected, query


@pytest.mark.covers("tasks_filter", "success")
async def test_tasks_filter_reads_status_and_relative_due_dates(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        out = await vg.ok("tasks_filter", query="not done\ndue before tomorrow\nsort by due", today=TODAY)
        assert [i["description"] for i in out["items"]] == ["buy milk #shop", "stretch"] and out["total"] == 2
        first = out["items"][0]
        assert first["path"] == "Inbox/Capture.md" and first["line"] == 3 and first["due"] == "2026-11-27"
        assert first["heading"] == "Inbox" and first["group"] == [] and out["explain"] is None
        await same(vg, "done", {"send invoice", "old idea"})
        await same(vg, "due today", {"stretch"})
        await same(vg, "due on yesterday", {"buy milk"})
        await same(vg, "due after today\nnot done", {"write report", "draft plan", "hidden"})
        await same(vg, "due on or before 2026-11-28\nnot done", {"buy milk", "stretch"})
        await same(vg, "due in two weeks", set())
        await same(vg, "due before in two weeks\ndue after in 3 days", {"draft plan"})
        await same(vg, "due next week", {"write report", "draft plan"})
        await same(vg, "due this week\nnot done", {"buy milk", "stretch", "hidden"})
        await same(vg, "due 2026-11-01 2026-11-27", {"send invoice", "buy milk"})
        await same(vg, "due next monday", {"write report"})


async def test_tasks_filter_other_dates_follow_the_plugin_semantics(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        everything = set(await names(vg, ""))
        assert len(everything) == 10
        await same(vg, "no due date", {"old idea", "call Ann", "read book", "no dates here"})
        assert set(await names(vg, "has due date")) == everything - set(await names(vg, "no due date"))
        await same(vg, "scheduled after today", {"call Ann"})
        await same(vg, "has scheduled date", {"call Ann"})
        # `starts` keeps tasks without a start date; only `read book` starts later
        assert set(await names(vg, "starts before 2026-12-01")) == everything - {"read book"}
        await same(vg, "has start date", {"read book"})
        # `happens`: any of start, scheduled, due
        await same(vg, "happens next week", {"write report", "draft plan", "call Ann"})
        await same(vg, "happens after 2026-12-06", {"read book"})
        await same(vg, "no happens date", {"old idea", "no dates here"})
        await same(vg, "done on 2026-11-02", {"send invoice"})
        await same(vg, "cancelled before 2026-11-01", {"old idea"})
        await same(vg, "is recurring", {"stretch"})


async def test_tasks_filter_priority_text_and_tag_filters(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        await same(vg, "priority is high", {"write report", "draft plan"})
        await same(vg, "priority is highest", {"stretch"})
        await same(vg, "priority is above medium", {"write report", "draft plan", "stretch"})
        await same(vg, "priority is below none", {"read book"})
        await same(vg, "priority is none\nnot done", {"call Ann", "buy milk", "no dates here", "hidden"})
        await same(vg, "path includes inbox", {"buy milk", "no dates here"})
        await same(vg, "path does not include Work\npath does not include Private", {"buy milk", "no dates here"})
        await same(vg, "description includes ANN", {"call Ann"})
        await same(vg, "description does not include e\nnot done", {"call Ann", "draft plan", "buy milk"})
        await same(vg, "description regex matches /^(call|buy) /i", {"call Ann", "buy milk"})
        await same(vg, "tags include #inbox", {"call Ann", "hidden"})
        await same(vg, "tag includes proj", {"write report"})
        await same(vg, "tags include #proj/alpha", {"write report"})
        assert len(await names(vg, "tags do not include inbox")) == 8
        await same(vg, "heading includes later", {"call Ann", "read book", "stretch"})
        await same(vg, "folder includes Inbox/", {"buy milk", "no dates here"})


async def test_tasks_filter_combines_filters_as_the_plugin_does(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        await same(
            vg, "(tags include #inbox) OR (path includes Inbox)", {"call Ann", "hidden", "buy milk", "no dates here"}
        )
        await same(vg, "NOT (done)\n(priority is high) AND (due before 2026-12-01)", {"write report"})
        await same(
            vg,
            "[due before 2026-12-01] XOR [priority is high]",
            {"send invoice", "stretch", "buy milk", "hidden", "draft plan"},
        )
        await same(
            vg,
            "(path includes Work) AND NOT (done) AND NOT (priority is none)",
            {"write report", "draft plan", "read book", "stretch"},
        )
        await same(
            vg, '"description includes milk" OR NOT "path includes Work"', {"buy milk", "no dates here", "hidden"}
        )
        # NOT binds first, then XOR, then AND, then OR: a OR b AND c is a OR (b AND c)
        await same(
            vg, "(description includes milk) OR (path includes Work) AND (priority is highest)", {"buy milk", "stretch"}
        )
        await same(vg, "((description includes milk) OR (path includes Work)) AND (priority is highest)", {"stretch"})
        await same(vg, "((path includes Work) AND ((priority is high) OR (heading includes later)))\\\n AND (not done)",
                   {"write report", "draft plan", "call Ann", "read book", "stretch"})  # fmt: skip


async def test_tasks_filter_sorts_groups_limits_and_pages(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        assert await names(vg, "has due date\nsort by due") == [
            "send invoice", "buy milk", "stretch", "hidden", "write report", "draft plan"]  # fmt: skip
        assert (await names(vg, "has due date\nnot done\nsort by due reverse"))[0] == "draft plan"
        assert (await names(vg, "not done\nsort by priority\nsort by description"))[:3] == [
            "stretch", "draft plan", "write report"]  # fmt: skip
        assert await names(vg, "not done\nsort by description\nlimit to 2 tasks") == ["buy milk", "call Ann"]
        limited = await vg.ok("tasks_filter", query="not done\nsort by due\nlimit 3", today=TODAY, limit=2)
        assert [i["due"] for i in limited["items"]] == ["2026-11-27", "2026-11-28"] and limited["total"] == 3
        rest = await vg.ok(
            "tasks_filter", query="not done\nsort by due\nlimit 3", today=TODAY, cursor=limited["next_cursor"]
        )
        assert [i["due"] for i in rest["items"]] == ["2026-11-29"] and rest["next_cursor"] is None
        out = await vg.ok("tasks_filter", query="not done\ngroup by path\nsort by description", today=TODAY)
        assert [g["names"] for g in out["groups"]] == [["Inbox/Capture"], ["Private/Secret"], ["Work"]]
        assert [g["count"] for g in out["groups"]] == [2, 1, 5] and out["total"] == 8
        assert out["items"][0]["group"] == ["Inbox/Capture"] and out["items"][0]["description"] == "buy milk #shop"
        tags = await vg.ok("tasks_filter", query="tags include #\ngroup by tags reverse\nlimit groups 1", today=TODAY)
        assert [g["names"][0] for g in tags["groups"]] == ["#shop", "#proj/alpha", "#inbox"]
        due = await vg.ok("tasks_filter", query="not done\ngroup by due\ngroup by priority", today=TODAY)
        assert due["groups"][0]["names"] == ["2026-11-27 Friday", "Normal priority"]
        assert due["groups"][-1]["names"] == ["No due date", "Low priority"]
        explained = await vg.ok(
            "tasks_filter", query="explain\nshort mode\nhide edit button\ndue before tomorrow", today=TODAY
        )
        assert explained["explain"] == ["due date before 2026-11-29"]
        assert explained["ignored"] == ["short mode", "hide edit button"]
        page1 = await vg.ok("tasks_filter", query="sort by path", today=TODAY, limit=4)
        page2 = await vg.ok("tasks_filter", query="sort by path", today=TODAY, limit=4, cursor=page1["next_cursor"])
        page3 = await vg.ok("tasks_filter", query="sort by path", today=TODAY, limit=4, cursor=page2["next_cursor"])
        whole = await vg.ok("tasks_filter", query="sort by path", today=TODAY, limit=50)
        assert page1["items"] + page2["items"] + page3["items"] == whole["items"] and page3["next_cursor"] is None
        await vg.err("tasks_filter", "validation_error", query="done", today=TODAY, cursor=page1["next_cursor"])


async def test_tasks_filter_hides_tasks_the_acl_denies(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), acl={"prefix_rules": [{"path": "Private", "read": "deny"}]}) as vg:
        await vg.indexed()
        out = await vg.ok("tasks_filter", query="tags include #inbox\ngroup by path", today=TODAY)
        assert [i["description"] for i in out["items"]] == ["call Ann #inbox"] and out["total"] == 1
        assert out["groups"] == [{"names": ["Work"], "count": 1}]
        assert "hidden" not in await names(vg, "path includes Private") + await names(vg, "not done")


@pytest.mark.covers("tasks_filter", "failure")
async def test_tasks_filter_says_which_line_does_not_read(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        err = await vg.err("tasks_filter", "query_syntax_error", query="not done\n\ndue before someday", today=TODAY)
        assert err["details"] == {"line": 3, "column": 12, "text": "due before someday"}
        err = await vg.err("tasks_filter", "query_syntax_error", query="(due today) AND (done", today=TODAY)
        assert err["details"]["line"] == 1 and err["details"]["column"] == 17
        err = await vg.err("tasks_filter", "query_syntax_error", query="# comment\n(done) and (due today)")
        assert (err["details"]["line"], err["details"]["column"]) == (2, 8)
        err = await vg.err("tasks_filter", "query_syntax_error", query="sort by colour")
        assert err["details"]["text"] == "sort by colour"
        for bad in ("priority is urgent", "filter by function task.dew", "frobnicate", "description regex matches /(/"):
            await vg.err("tasks_filter", "query_syntax_error", query=bad)
        await vg.err("tasks_filter", "validation_error", query="done\n" * 300)
        await vg.err("tasks_filter", "validation_error", query="done", today="28/11/2026")
        await vg.err("tasks_filter", "validation_error", query="done", today="2026-02-30")


async def test_tasks_filter_sees_a_task_written_after_an_earlier_query(make_vault: Callable[..., Path]) -> None:
    """The records a query tested in Python are kept per index generation: a write is seen."""
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        query = "description includes milk\ngroup by path"
        assert await names(vg, query) == ["buy milk"]
        await vg.ok("append_note", path="Inbox/Capture.md", content="- [ ] oat milk ⏫\n")
        await vg.settled()
        assert sorted(await names(vg, query)) == ["buy milk", "oat milk"]
        assert await names(vg, "description includes milk\npriority is high") == ["oat milk"]


async def test_tasks_filter_orders_by_urgency_as_the_plugin_scores_it(make_vault: Callable[..., Path]) -> None:
    """Urgency (due: 8.8 today, 12.0 from a week late, 2.4 from two weeks ahead; priority 9 to
    -1.8; scheduled today or earlier +5; starting later -3) is the default order's second key."""
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        by_urgency = ["stretch", "write report", "draft plan", "buy milk", "hidden", "no dates here", "call Ann",
                      "read book"]  # fmt: skip
        assert await names(vg, "not done\nsort by urgency") == by_urgency
        reverse = ["read book", "no dates here", "call Ann", "hidden", "buy milk", "draft plan", "write report",
                   "stretch"]  # fmt: skip
        assert await names(vg, "not done\nsort by urgency reverse") == reverse
        # the default order: status type (in progress first), then urgency
        assert await names(vg, "not done") == ["draft plan", *(n for n in by_urgency if n != "draft plan")]
        # counted from another day: `buy milk` is a week late (12 + 1.95), `draft plan` due tomorrow (8.34 + 6)
        later = await vg.ok("tasks_filter", query="not done\nsort by urgency\nlimit 4", today="2026-12-04")
        assert [i["description"].split(" #")[0] for i in later["items"]] == [
            "stretch", "write report", "draft plan", "buy milk"]  # fmt: skip


async def test_tasks_filter_answers_alike_from_the_index_and_from_the_task_records(
    make_vault: Callable[..., Path],
) -> None:
    """The first query after a change may be answered by the index alone (SQL), later ones over
    the task records: both give the same tasks in the same order."""
    from service.tools.tasks import task_records

    queries = [
        "not done",
        "sort by urgency",
        "due before 2026-12-01\nsort by priority reverse",
        "sort by path\nlimit 4",
        "(priority is high) OR (has scheduled date)\nsort by status",
        "sort by recurring\nsort by due reverse",
    ]
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        for query in queries:
            task_records._CACHE.clear()
            from_index = await vg.ok("tasks_filter", query=query, today=TODAY)
            await vg.ok("tasks_filter", query="group by path", today=TODAY)  # builds the records
            assert task_records._CACHE, "the grouping query did not build the records"
            assert await vg.ok("tasks_filter", query=query, today=TODAY) == from_index, query


TASKS_SETTINGS = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
TAGGED = {
    "Work.md": "- [ ] #task write report 📅 2026-11-30\n- [ ] buy milk\n- [x] #task filed ✅ 2026-11-02\n",
    "Other.md": "- [ ] #task call Ann ⏫\n- [ ] #tasks plural is not the filter word\n",
}


async def test_tasks_filter_keeps_only_tasks_with_the_global_filter(make_vault: Callable[..., Path]) -> None:
    files = {**TAGGED, TASKS_SETTINGS: '{"globalFilter": "#task ", "globalQuery": "path does not include Other"}'}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        assert await names(vg, "not done") == ["#task write report"]
        out = await vg.ok("tasks_filter", query="explain\nsort by path", today=TODAY)
        assert out["total"] == 2 and out["explain"][:2] == [
            "global filter: the task contains '#task '", "path does not include Other"]  # fmt: skip
        # `ignore global query` drops the global query, never the global filter
        assert await names(vg, "ignore global query\nnot done\nsort by path") == [
            "#task call Ann", "#task write report"]  # fmt: skip


async def test_tasks_filter_global_query_expressions_come_before_the_query_s_own(
    make_vault: Callable[..., Path],
) -> None:
    files = {**FILES, TASKS_SETTINGS: '{"globalQuery": "not done\\ngroup by function task.file.root"}'}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("tasks_filter", query="group by function task.priorityName", today=TODAY)
        assert [g["names"] for g in out["groups"]][:3] == [["/", "High"], ["/", "Highest"], ["/", "Low"]]
        assert out["total"] == 8


async def test_tasks_filter_global_filter_set_for_the_vault_wins(make_vault: Callable[..., Path]) -> None:
    root = make_vault({**TAGGED, TASKS_SETTINGS: '{"globalFilter": "#task "}'})
    async with started(root, vaults=[{"id": "main", "path": root, "tasks_global_filter": ""}]) as vg:
        await vg.indexed()
        assert len(await names(vg, "not done")) == 4  # '' in the settings: every list item is a task
    async with started(root, vaults=[{"id": "main", "path": root, "tasks_global_filter": "milk"}]) as vg:
        await vg.indexed()
        assert await names(vg, "") == ["buy milk"]


async def test_tasks_filter_evaluates_function_expressions_without_javascript(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        fn = "filter by function "
        await same(
            vg, fn + "task.due.moment !== null && task.due.moment.isBefore(moment())", {"send invoice", "buy milk"}
        )
        await same(vg, fn + "task.due.moment?.isBefore(moment('2026-11-28'))", {"send invoice", "buy milk"})
        await same(vg, fn + "task.priorityNumber <= 1 && !task.isDone", {"write report", "draft plan", "stretch"})
        await same(vg, fn + "task.description.toLowerCase().includes('ann') || task.file.folder === 'Inbox/'",
                   {"call Ann", "buy milk", "no dates here"})  # fmt: skip
        await same(vg, fn + "task.tags.includes('#inbox')", {"call Ann", "hidden"})
        await same(vg, fn + 'task.status.type === "CANCELLED" || task.urgency > 17', {"old idea", "stretch"})
        await same(vg, "(not done) AND (filter by function task.file.filename === 'Capture.md')",
                   {"buy milk", "no dates here"})  # fmt: skip
        by_length = ["stretch", "read book", "draft plan", "hidden", "no dates here", "buy milk", "call Ann",
                     "write report"]  # fmt: skip
        assert await names(vg, "not done\nsort by function task.description.length") == by_length
        assert await names(vg, "not done\nsort by function reverse task.urgency") == await names(
            vg, "not done\nsort by urgency"
        )
        out = await vg.ok("tasks_filter", query="not done\ngroup by function task.file.root", today=TODAY)
        assert [(g["names"], g["count"]) for g in out["groups"]] == [(["/"], 5), (["Inbox/"], 2), (["Private/"], 1)]
        months = "has happens date\ngroup by function task.due.moment ? task.due.moment.format('YYYY-MM') : null"
        out = await vg.ok("tasks_filter", query=months, today=TODAY)
        assert [g["names"][0] for g in out["groups"]] == ["(no group)", "2026-11", "2026-12"]  # null: '' first (s76)
        explained = await vg.ok("tasks_filter", query="explain\nsort by function task.urgency", today=TODAY)
        assert explained["explain"] == ["sort by function task.urgency"]


@pytest.mark.parametrize(
    ("query", "line", "column"),
    [
        ("filter by function task.colour", 1, 25),  # a field that does not exist
        ("not done\nsort by function task.description.foo()", 2, 35),  # a method that does not exist
        ("filter by function process.exit()", 1, 20),  # no names but task and moment
        ("filter by function task.due => 1", 1, 29),  # no arrow functions, assignments, …
        ("group by function", 1, 18),
        ("(not done) AND (filter by function task.priorityNumber >)", 1, 57),
        ("filter by function task.due.moment.isBefore(moment())", 1, 36),  # null.isBefore while running
    ],
)
async def test_tasks_filter_says_where_an_expression_fails(
    make_vault: Callable[..., Path], query: str, line: int, column: int
) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        err = await vg.err("tasks_filter", "query_syntax_error", query=query, today=TODAY)
        assert (err["details"]["line"], err["details"]["column"]) == (line, column), err


async def test_tasks_filter_says_where_the_global_query_does_not_read(make_vault: Callable[..., Path]) -> None:
    files = {**FILES, TASKS_SETTINGS: '{"globalQuery": "not done\\ndue before someday"}'}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        err = await vg.err("tasks_filter", "query_syntax_error", query="done", today=TODAY)
        assert err["details"] == {"line": 2, "column": 12, "text": "due before someday", "source": "global query"}
        assert await names(vg, "ignore global query\ndue today") == ["stretch"]
