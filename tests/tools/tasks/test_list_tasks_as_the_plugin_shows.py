"""list_tasks reads the Tasks plugin settings that change a task as tasks_filter does (one rule):
- the global filter's tag (`#task`) is no tag of a task (the plugin drops it; tasks_filter did,
  list_tasks answered it among `tags` and its `tag` filter matched it);
- with "use filename as Scheduled date", an undated task of a note named by a date is scheduled
  on that date: list_tasks' scheduled filters, its sort and its answer ignored it (tasks_filter
  `scheduled on` found the task, list_tasks `scheduled_on` did not).
Through the dispatcher."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

PLUGIN = ".obsidian/plugins/obsidian-tasks-plugin/data.json"


async def test_the_global_filter_tag_is_no_tag_of_a_task(make_vault: Callable[..., Path]) -> None:
    files = {
        "W.md": "- [ ] #task call Ann #phone\n- [ ] #task/sub plan\n- [ ] milk #task\n- [ ] bread\n",
        PLUGIN: json.dumps({"globalFilter": "#task"}),
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("list_tasks")
        assert [(t["text"], t["tags"]) for t in out["items"]] == [
            ("#task call Ann #phone", ["phone"]),
            ("#task/sub plan", ["task/sub"]),  # holds the filter's text: a task; its nested tag is a tag
            ("milk #task", []),
        ]
        assert [t["tags"] for t in (await vg.ok("list_tasks", all_checkboxes=True))["items"]] == [
            ["task", "phone"], ["task/sub"], ["task"], []
        ]  # fmt: skip
        assert (await vg.ok("list_tasks", tag="phone"))["total"] == 1
        out = await vg.ok("list_tasks", tag="#task")  # the nested tag only, as `tags include #task` in the plugin
        assert [t["text"] for t in out["items"]] == ["#task/sub plan"]
        out = await vg.ok("tasks_filter", query="tags include #task")
        assert [t["text"] for t in out["items"]] == ["#task/sub plan"]


async def test_filename_dates_schedule_undated_tasks(make_vault: Callable[..., Path]) -> None:
    files = {
        "Daily/2026-12-01.md": "- [ ] undated\n- [ ] due 📅 2026-12-05\n- [ ] set ⏳ 2026-12-03\n",
        "Notes/Plain.md": "- [ ] plain\n",
        PLUGIN: json.dumps({"useFilenameAsScheduledDate": True}),
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("list_tasks", scheduled_on="2026-12-01")
        assert [(t["text"], t["scheduled"]) for t in out["items"]] == [("undated", "2026-12-01")]
        assert (await vg.ok("tasks_filter", query="scheduled on 2026-12-01"))["total"] == 1
        out = await vg.ok("list_tasks", scheduled_before="2026-12-04", sort="scheduled")
        assert [t["text"] for t in out["items"]] == ["undated", "set ⏳ 2026-12-03"]
        assert (await vg.ok("list_tasks", scheduled_after="2026-12-01"))["total"] == 1
        out = await vg.ok("list_tasks", no_date=True)
        assert [t["text"] for t in out["items"]] == ["plain"]
        out = await vg.ok("list_tasks", sort="scheduled")
        assert [(t["text"], t["scheduled"]) for t in out["items"]] == [
            ("undated", "2026-12-01"),
            ("set ⏳ 2026-12-03", "2026-12-03"),
            ("due 📅 2026-12-05", None),  # dated: no fallback
            ("plain", None),
        ]
