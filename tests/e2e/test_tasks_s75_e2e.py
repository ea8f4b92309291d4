"""Session 75's tasks changes over real HTTP with the SDK client (both eras): set_task_status given a
status type writes the status the Tasks plugin settings register for it; list_tasks reads the
global filter's tag and filename dates as tasks_filter does; task fields are read in the plugin's
task format only; recurrence rules in rrule.js' words recur."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

PLUGIN = ".obsidian/plugins/obsidian-tasks-plugin/data.json"


async def test_a_status_type_writes_the_settings_status_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    working = {"symbol": "w", "name": "Working", "nextStatusSymbol": "x", "type": "IN_PROGRESS"}
    files = {"T.md": "- [ ] ask Bob\n", PLUGIN: json.dumps({"statusSettings": {"customStatuses": [working]}})}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            args = {"path": "T", "line": 1, "expected_text": "ask Bob"}
            out = await ok(client, "set_task_status", status="in_progress", **args)
            assert (out["status_type"], out["changes"][0]["after"]) == ("in_progress", "- [w] ask Bob")
            err = await error(client, "set_task_status", status="cancelled", **args)
            assert (err["code"], err["details"]["reason"]) == ("validation_error", "no_such_status")


async def test_list_tasks_reads_the_plugin_settings_as_tasks_filter_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """The global filter's tag is no tag; filename dates schedule an undated task (list_tasks too)."""
    settings = {"globalFilter": "#task", "useFilenameAsScheduledDate": True}
    files = {"Daily/2026-12-01.md": "- [ ] #task call Ann #phone\n", PLUGIN: json.dumps(settings)}
    async with e2e(make_vault(files)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await ok(client, "list_tasks", scheduled_on="2026-12-01")
            assert [(t["tags"], t["scheduled"]) for t in out["items"]] == [(["phone"], "2026-12-01")]
            assert (await ok(client, "list_tasks", tag="task"))["total"] == 0


async def test_fields_in_the_plugins_task_format_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """Task fields are read in the Tasks settings' taskFormat only; a change of it is read again."""
    root = make_vault({"T.md": "- [ ] pay [due:: 2026-12-01]\n- [ ] call 📅 2026-12-02\n", PLUGIN: "{}"})
    async with e2e(root) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            listed = await ok(client, "list_tasks")
            assert [(t["description"], t["due"]) for t in listed["items"]] == [
                ("pay [due:: 2026-12-01]", None),
                ("call", "2026-12-02"),
            ]
            (root / PLUGIN).write_text(json.dumps({"taskFormat": "dataview"}), encoding="utf-8")
            out = await ok(client, "tasks_filter", query="has due date")
            assert [(t["description"], t["due"]) for t in out["items"]] == [("pay", "2026-12-01")]


async def test_the_plugins_rule_words_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """`every month on the first Monday` (rrule.js' words) recurs, as in the plugin."""
    note = "- [ ] pay 🔁 every month on the first Monday 📅 2026-12-07\n"
    async with e2e(make_vault({"R.md": note})) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            args = {"path": "R", "line": 1, "expected_text": note[6:-1], "date": "2026-12-07"}
            out = await ok(client, "set_task_status", status="x", **args)
            assert out["next_occurrence"] == "pay 🔁 every month on the first Monday 📅 2027-01-04"
