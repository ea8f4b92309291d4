"""The Tasks plugin's global filter decides which checkbox items are tasks, for every tool that
lists or counts tasks: with `globalFilter: "#task"` only items containing `#task` are tasks in the
plugin (docs Getting Started/Global Filter). Left open by session 73 (T2): only tasks_filter
honoured it; list_tasks, index_status' `tasks` / `open_tasks` and the digest read every checkbox,
so "my open tasks" through list_tasks held the shopping list the user keeps out of Tasks, and
index_status' open_tasks disagreed with tasks_filter's `not done`. Now all of them read the filter;
list_tasks' `all_checkboxes` lists every checkbox item, and the vault's `tasks_global_filter = ""`
turns the filter off everywhere. Through the dispatcher."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

PLUGIN = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
FILES = {
    "Work.md": "# W\n\n- [ ] #task call Ann\n- [x] #task sent invoice\n- [ ] milk\n- [ ] eggs\n",
    "Private/P.md": "- [ ] #task secret\n",
    PLUGIN: json.dumps({"globalFilter": "#task"}),
}


def _texts(out: dict[str, object]) -> list[str]:
    return sorted(str(t["text"]) for t in out["items"])  # type: ignore[attr-defined]


async def test_every_tool_reads_the_global_filter(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        listed = await vg.ok("list_tasks")
        assert _texts(listed) == ["#task call Ann", "#task secret", "#task sent invoice"]
        assert listed["global_filter"] == "#task"
        assert _texts(await vg.ok("list_tasks", status=["open"])) == ["#task call Ann", "#task secret"]
        every = await vg.ok("list_tasks", all_checkboxes=True)
        assert len(every["items"]) == 5 and every["global_filter"] is None
        status = await vg.ok("index_status")
        assert (status["tasks"], status["open_tasks"]) == (3, 2)
        assert (await vg.ok("tasks_filter", query="not done"))["total"] == 2
        digest = (await vg.ok("run_consolidation", jobs=["digest"], wait=True))["jobs"]
        assert [j["status"] for j in digest] == ["ran"], digest
        [found] = (await vg.ok("list_findings", kind="digest"))["items"]
        assert found["detail"]["open_tasks"] == 2, found


async def test_a_restricted_caller_counts_the_global_filters_tasks(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
    async with started(make_vault(FILES), acl=acl) as vg:
        await vg.indexed()
        status = await vg.ok("index_status")
        assert (status["tasks"], status["open_tasks"]) == (2, 1)
        assert _texts(await vg.ok("list_tasks")) == ["#task call Ann", "#task sent invoice"]


async def test_the_vault_setting_turns_the_global_filter_off(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root, vaults=[{"id": "main", "path": str(root), "tasks_global_filter": ""}]) as vg:
        await vg.indexed()
        listed = await vg.ok("list_tasks")
        assert len(listed["items"]) == 5 and listed["global_filter"] is None
        assert (await vg.ok("index_status"))["tasks"] == 5
