"""Task fields are read in the format the Tasks plugin settings select, as the plugin reads them
(Task.fromLine: its `taskFormat`'s serializer only): the emoji by default, `[due:: …]` fields with
'dataview'; both only in a vault without Tasks settings (Dataview's reading, as before). Before, the
index, list_tasks and tasks_filter read both formats everywhere: `- [ ] pay [due:: 2026-12-01]` was
due in a vault whose plugin shows it undated. A change of the setting reads the affected notes
again at the next reconcile (a restart, a `reindex`). Through the dispatcher."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

PLUGIN = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
NOTE = "- [ ] pay [due:: 2026-12-01]\n- [ ] call 📅 2026-12-02\n- [ ] plain\n"
EMOJI = [("pay [due:: 2026-12-01]", None), ("call", "2026-12-02"), ("plain", None)]
DATAVIEW = [("pay", "2026-12-01"), ("call 📅 2026-12-02", None), ("plain", None)]
BOTH = [("pay", "2026-12-01"), ("call", "2026-12-02"), ("plain", None)]


async def _read(vg: Any) -> list[tuple[str, str | None]]:
    listed = await vg.ok("list_tasks")
    found = [(t["description"], t["due"]) for t in listed["items"]]
    filtered = await vg.ok("tasks_filter", query="has due date")
    assert sorted(t["description"] for t in filtered["items"]) == sorted(d for d, due in found if due)
    due = await vg.ok("list_tasks", has_due=True)
    assert [t["description"] for t in due["items"]] == [d for d, day in found if day]
    return found


async def test_fields_are_read_in_the_plugins_task_format(make_vault: Callable[..., Path]) -> None:
    for settings, expected in (
        ({}, EMOJI),
        ({"taskFormat": "tasksPluginEmoji"}, EMOJI),
        ({"taskFormat": "dataview"}, DATAVIEW),
        (None, BOTH),
    ):
        files = {"T.md": NOTE} if settings is None else {"T.md": NOTE, PLUGIN: json.dumps(settings)}
        async with started(make_vault(files)) as vg:
            await vg.indexed()
            assert await _read(vg) == expected, settings


async def test_a_change_of_the_task_format_reads_the_tasks_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"T.md": NOTE, PLUGIN: "{}"})
    async with started(root) as vg:
        await vg.indexed()
        assert await _read(vg) == EMOJI
    (root / PLUGIN).write_text(json.dumps({"taskFormat": "dataview"}), encoding="utf-8")
    async with started(root) as vg:  # a restart on the same index: the settings changed meanwhile
        await vg.indexed()
        assert await _read(vg) == DATAVIEW
        (root / PLUGIN).unlink()  # no Tasks settings: both formats, read again by a reindex
        await vg.ok("reindex", mode="sync", wait=True)
        assert await _read(vg) == BOTH


async def test_completion_reads_the_plugins_format(make_vault: Callable[..., Path]) -> None:
    """In an emoji vault `[repeat:: every week]` is description: done makes no next occurrence."""
    note = "- [ ] water [repeat:: every week] [due:: 2026-12-01]\n"
    async with started(make_vault({"T.md": note, PLUGIN: "{}"})) as vg:
        text = "water [repeat:: every week] [due:: 2026-12-01]"
        out = await vg.ok("set_task_status", path="T", line=1, status="x", expected_text=text, date="2026-12-02")
        assert out["next_occurrence"] is None
        assert vg.read("T.md") == "- [x] water [repeat:: every week] [due:: 2026-12-01] ✅ 2026-12-02\n"


async def test_a_change_while_the_server_runs_is_read_at_the_next_tasks_call(make_vault: Callable[..., Path]) -> None:
    """The watcher does not follow `.obsidian`: list_tasks and tasks_filter see the setting changed
    and have the index read the tasks again before they answer."""
    root = make_vault({"T.md": NOTE, PLUGIN: "{}"})
    async with started(root) as vg:
        await vg.indexed()
        assert await _read(vg) == EMOJI
        (root / PLUGIN).write_text(json.dumps({"taskFormat": "dataview"}), encoding="utf-8")
        assert await _read(vg) == DATAVIEW
        assert (await vg.ok("index_status"))["tasks"] == 3
