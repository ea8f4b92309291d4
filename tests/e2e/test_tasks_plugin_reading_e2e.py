"""Session 74's tasks changes over real HTTP with the SDK client: task fields are read from the
end of the line, as the Tasks plugin reads them (a 📅 followed by text is description); the statuses
are those the plugin settings register."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

CALLS = "- [ ] Call Bob 📅 2026-12-01 about it\n- [ ] Call Ann 📅 2026-12-01 #phone ⏫\n"


async def test_fields_from_the_end_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Calls.md": CALLS})) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            listed = await ok(client, "list_tasks")
            assert sorted((t["description"], t["due"]) for t in listed["items"]) == [
                ("Call Ann #phone", "2026-12-01"),
                ("Call Bob 📅 2026-12-01 about it", None),
            ]
            out = await ok(client, "tasks_filter", query="no due date", today="2026-12-02")
            assert [t["description"] for t in out["items"]] == ["Call Bob 📅 2026-12-01 about it"]


async def test_statuses_deleted_from_the_settings_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """Settings whose custom statuses omit the default `-`: the plugin reads `[-]` as Unknown, to do."""
    waiting = {"symbol": "w", "name": "Waiting", "nextStatusSymbol": "x", "type": "IN_PROGRESS"}
    files = {
        "T.md": "- [-] dropped\n- [w] waiting\n",
        ".obsidian/plugins/obsidian-tasks-plugin/data.json": json.dumps(
            {"statusSettings": {"customStatuses": [waiting]}}
        ),
    }
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            listed = await ok(client, "list_tasks", status=["open"])
            assert sorted((t["text"], t["status_type"]) for t in listed["items"]) == [
                ("dropped", "todo"),
                ("waiting", "in_progress"),
            ]
            assert (await ok(client, "index_status"))["open_tasks"] == 2


async def test_global_filter_in_list_tasks_and_counts_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """With the plugin's global filter only items containing it are tasks: list_tasks and
    index_status agree with tasks_filter; all_checkboxes lists every checkbox item."""
    files = {
        "W.md": "- [ ] #task call Ann\n- [ ] milk\n",
        ".obsidian/plugins/obsidian-tasks-plugin/data.json": json.dumps({"globalFilter": "#task"}),
    }
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            listed = await ok(client, "list_tasks")
            assert ([t["text"] for t in listed["items"]], listed["global_filter"]) == (["#task call Ann"], "#task")
            assert len((await ok(client, "list_tasks", all_checkboxes=True))["items"]) == 2
            status = await ok(client, "index_status")
            assert (status["tasks"], status["open_tasks"]) == (1, 1)
            assert (await ok(client, "tasks_filter", query="not done"))["total"] == 1


async def test_documented_task_properties_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Calls.md": CALLS})) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = "filter by function task.lineNumber === 1 && ['#phone'].includes(task.tags[0])"
            out = await ok(client, "tasks_filter", query=query, today="2026-12-02")
            assert [t["description"] for t in out["items"]] == ["Call Ann #phone"]
            query = "group by function task.status.typeGroupText"
            out = await ok(client, "tasks_filter", query=query, today="2026-12-02")
            assert [g["names"] for g in out["groups"]] == [["%%2%%TODO"]]
            query = "filter by function task.originalMarkdown.startsWith('- [ ] Call Bob')"
            out = await ok(client, "tasks_filter", query=query, today="2026-12-02")
            assert [(t["text"], t["due"]) for t in out["items"]] == [("Call Bob 📅 2026-12-01 about it", None)]


async def test_is_blocked_expression_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    files = {"A.md": "- [ ] write 🆔 w1\n- [ ] review ⛔ w1\n"}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = "filter by function task.isBlocked(query.allTasks)"
            out = await ok(client, "tasks_filter", query=query, today="2026-12-02")
            assert [t["description"] for t in out["items"]] == ["review"]


async def test_done_date_in_the_plugins_format_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    files = {
        "T.md": "- [ ] plain\n",
        ".obsidian/plugins/obsidian-tasks-plugin/data.json": json.dumps({"taskFormat": "dataview"}),
    }
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            args = {"path": "T", "line": 1, "status": "x", "expected_text": "plain", "date": "2026-12-02"}
            out = await ok(client, "set_task_status", **args)
            assert out["text"] == "plain [completion:: 2026-12-02]", out
