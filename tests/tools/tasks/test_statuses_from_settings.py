"""The vault's statuses are those its Tasks plugin settings register (src/Config/StatusSettings.ts,
applyToStatusRegistry): the settings' core statuses then custom ones, the first entry of a symbol
kept. `/` (In Progress) and `-` (Cancelled) are default *custom* statuses a user may delete; once
deleted the plugin reads `[/]` and `[-]` as Unknown: to do, toggled to `x`. Found in session 73
(T2) and left open: vaultgate kept them typed in progress / cancelled whatever the settings said,
so `[-] dropped` was closed for list_tasks, tasks_filter and index_status where the plugin lists
it among `not done`. Through the dispatcher."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

PLUGIN = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
WAIT = {"symbol": "w", "name": "Waiting", "nextStatusSymbol": "x", "type": "IN_PROGRESS"}
NOTE = "# T\n\n- [ ] a\n- [/] b\n- [-] c\n- [w] d\n- [x] e\n"


async def test_deleted_default_statuses_are_unknown(make_vault: Callable[..., Path]) -> None:
    settings = {"statusSettings": {"customStatuses": [WAIT, {"symbol": "w", "name": "Twice", "type": "DONE"}]}}
    async with started(make_vault({"T.md": NOTE, PLUGIN: json.dumps(settings)})) as vg:
        await vg.indexed()
        listed = await vg.ok("list_tasks", sort="path")
        assert [(t["text"], t["status_type"]) for t in listed["items"]] == [
            ("a", "todo"), ("b", "todo"), ("c", "todo"), ("d", "in_progress"), ("e", "done"),
        ]  # fmt: skip
        assert (await vg.ok("index_status"))["open_tasks"] == 4
        out = await vg.ok("tasks_filter", query="not done\ngroup by status.name")
        assert [g["names"] for g in out["groups"]] == [["Todo"], ["Unknown"], ["Waiting"]]
        assert (await vg.ok("tasks_filter", query="status.type is CANCELLED"))["total"] == 0
        closed = await vg.ok("set_task_status", path="T", line=5, status="x", expected_text="c")
        assert closed["status_type"] == "done"


async def test_no_status_settings_keeps_the_plugins_defaults(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"T.md": NOTE, PLUGIN: json.dumps({"globalFilter": ""})})) as vg:
        await vg.indexed()
        listed = await vg.ok("list_tasks", sort="path")
        assert [t["status_type"] for t in listed["items"]] == ["todo", "in_progress", "cancelled", "todo", "done"]
