"""`- [X]` (capital X) through the dispatch chain, as each program reads it: the Tasks plugin's
statuses are `[ ]` and `[x]` (core) and `[/]`, `[-]`; any other character its settings do not name
is the status `Unknown`, type TODO, toggled to `x` (its docs, "Unknown Statuses"), so `[X]` is not
done for list_tasks and tasks_filter, unless the settings name it; Dataview's `completed` is true
for `X` as for `x`. vaultgate read `[X]` as the plugin's Done everywhere (a `not done` query left it
out, `status.name` said Done, a toggle went to ' ')."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

NOTE = "# T\n- [X] capital 📅 2026-12-01\n- [x] small\n- [ ] open\n"
SETTINGS = ".obsidian/plugins/obsidian-tasks-plugin/data.json"


@pytest.mark.covers("tasks_filter", "success")
async def test_a_capital_x_is_unknown_to_the_tasks_plugin_and_completed_to_dataview(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"T.md": NOTE})) as vg:
        await vg.indexed()
        out = await vg.ok("tasks_filter", query="not done\nsort by description")
        assert [i["description"] for i in out["items"]] == ["capital", "open"]
        out = await vg.ok("tasks_filter", query="group by status.name")
        assert out["groups"] == [{"names": ["Done"], "count": 1}, {"names": ["Todo"], "count": 1},
                                 {"names": ["Unknown"], "count": 1}]  # fmt: skip
        out = await vg.ok("tasks_filter", query="group by function task.status.type + ' ' + task.status.nextSymbol")
        assert [g["names"][0] for g in out["groups"]] == ["DONE  ", "TODO x"]
        listed = await vg.ok("list_tasks")
        kinds = [(i["status"], i["status_type"]) for i in listed["items"]]
        assert sorted(kinds) == [(" ", "todo"), ("X", "todo"), ("x", "done")]
        dql = await vg.ok("search_dql", query='TASK FROM "T" WHERE completed')
        assert sorted(t["text"] for t in dql["rows"]) == ["capital 📅 2026-12-01", "small"]


@pytest.mark.covers("tasks_filter", "success")
async def test_a_capital_x_the_settings_name_is_their_status(make_vault: Callable[..., Path]) -> None:
    custom = {"statusSettings": {"customStatuses": [{"symbol": "X", "name": "Checked", "type": "DONE",
                                                     "nextStatusSymbol": " "}]}}  # fmt: skip
    async with started(make_vault({"T.md": NOTE, SETTINGS: json.dumps(custom)})) as vg:
        await vg.indexed()
        out = await vg.ok("tasks_filter", query="not done")
        assert [i["description"] for i in out["items"]] == ["open"]
        out = await vg.ok("tasks_filter", query="status.name includes checked")
        assert [i["description"] for i in out["items"]] == ["capital"]
