"""Session 73's tasks changes over real HTTP with the SDK client: index_status' open_tasks and
list_tasks / tasks_filter read one definition of open (an in-progress `[/]` and a custom ON_HOLD
status are open), and tasks_filter expands `{{query.file.path}}` and presets from `file`, or
names the placeholder in a query_syntax_error when no file is given; the plugin's "use filename
as Scheduled date" schedules an undated task of a daily note."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

PLUGIN = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
DEFAULT_CUSTOM = [  # the plugin's default custom statuses, as its settings save them
    {"symbol": "/", "name": "In Progress", "nextStatusSymbol": "x", "type": "IN_PROGRESS"},
    {"symbol": "-", "name": "Cancelled", "nextStatusSymbol": " ", "type": "CANCELLED"},
]
HELD = {"symbol": "h", "name": "On Hold", "nextStatusSymbol": " ", "type": "ON_HOLD"}
FILES = {
    "Daily/2026-12-02.md": "# Day\n\n- [ ] call Ann 📅 2026-12-02\n- [/] draft plan\n- [x] sent ✅ 2026-12-01\n",
    "Work/Plan.md": "# Plan\n\n- [h] waiting on Bob 📅 2026-11-20\n- [-] dropped\n",
    PLUGIN: json.dumps({"statusSettings": {"customStatuses": [*DEFAULT_CUSTOM, HELD]}}),
}


async def test_open_tasks_and_query_file_placeholders_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            status = await ok(client, "index_status")
            assert (status["tasks"], status["open_tasks"]) == (5, 3)
            listed = await ok(client, "list_tasks", status=["open"])
            assert sorted(t["status_type"] for t in listed["items"]) == ["in_progress", "on_hold", "todo"]
            assert (await ok(client, "tasks_filter", query="not done"))["total"] == 3
            here = await ok(client, "tasks_filter", query="preset this_file\nnot done", file="2026-12-02")
            assert [t["text"] for t in here["items"]] == ["draft plan", "call Ann 📅 2026-12-02"]
            query = "not done\nhappens before {{query.file.filenameWithoutExtension}}"
            overdue = await ok(client, "tasks_filter", query=query, file="Daily/2026-12-02.md")
            assert [t["status_type"] for t in overdue["items"]] == ["on_hold"]
            failed = await error(client, "tasks_filter", query="path includes {{query.file.path}}")
            assert failed["code"] == "query_syntax_error" and failed["details"]["column"] == 15


async def test_filename_as_scheduled_date_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    settings = {"useFilenameAsScheduledDate": True}
    files = {"Daily/2026-12-02.md": "- [ ] undated\n- [ ] dated 📅 2026-12-09\n", PLUGIN: json.dumps(settings)}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query="scheduled today", today="2026-12-02")
            assert [(t["text"], t["scheduled"]) for t in out["items"]] == [("undated", "2026-12-02")]


async def test_note_properties_and_random_order_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    board = "---\nsprint: plan\nTQ_extra_instructions: not done\n---\n# Board\n"
    files = {
        "Board.md": board,
        "Work/A.md": "---\nstatus: active\n---\n- [ ] alpha plan\n- [x] bravo plan\n",
        "Work/B.md": "- [ ] charlie\n- [ ] delta plan\n",
    }
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            query = "description includes {{query.file.property('sprint')}}\nsort by random"
            out = await ok(client, "tasks_filter", query=query, file="Board", today="2026-12-02")
            assert [t["text"] for t in out["items"]] == ["alpha plan", "delta plan"]  # not done: from TQ_*
            query = "filter by function task.file.property('status') === 'active'"
            out = await ok(client, "tasks_filter", query=query)
            assert sorted(t["text"] for t in out["items"]) == ["alpha plan", "bravo plan"]


async def test_global_filter_tag_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    files = {"A.md": "- [ ] #task only\n- [ ] #task call Ann #phone\n", PLUGIN: json.dumps({"globalFilter": "#task"})}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "tasks_filter", query="no tags")
            assert [(t["text"], t["tags"]) for t in out["items"]] == [("#task only", [])]
            assert (await ok(client, "tasks_filter", query="description includes task"))["total"] == 0
