"""tasks_filter through the dispatch chain reads status names as the Tasks plugin does: the
built-in names (Todo, Done, In Progress, Cancelled), the names of custom statuses in the plugin's
settings, 'Unknown' for a character named nowhere — in `status.name` filters, `group by` /
`sort by status.name`, and `task.status.name` / `task.status.nextSymbol` in expressions."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started

SETTINGS = {
    "statusSettings": {
        "customStatuses": [  # with the plugin's default custom statuses, as its settings save them
            {"symbol": "/", "name": "In Progress", "nextStatusSymbol": "x", "type": "IN_PROGRESS"},
            {"symbol": "-", "name": "Cancelled", "nextStatusSymbol": " ", "type": "CANCELLED"},
            {"symbol": "!", "name": "Important", "nextStatusSymbol": "x", "type": "TODO"},
            {"symbol": "?", "name": "Question", "nextStatusSymbol": " ", "type": "IN_PROGRESS"},
        ],
    }
}
FILES = {
    ".obsidian/plugins/obsidian-tasks-plugin/data.json": json.dumps(SETTINGS),
    "Work.md": "- [ ] plain\n- [x] finished\n- [/] started\n- [-] dropped\n- [!] urgent thing\n- [?] ask Ann\n"
    "- [~] odd mark\n",
}


async def run(vg: Harness, query: str) -> dict[str, object]:
    return await vg.ok("tasks_filter", query=query, today="2026-01-05", limit=50)


async def descriptions(vg: Harness, query: str) -> list[str]:
    out = await run(vg, query)
    return [i["description"] for i in out["items"]]  # type: ignore[attr-defined]


@pytest.mark.covers("tasks_filter", "success")
async def test_status_names_as_the_plugin_reads_them(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        assert await descriptions(vg, "status.name includes important") == ["urgent thing"]
        assert await descriptions(vg, "status.name does not include N") == ["plain"]  # only Todo has no n
        assert await descriptions(vg, "status.name regex matches /^Unk/") == ["odd mark"]
        out = await run(vg, "group by status.name")
        names = [g["names"][0] for g in out["groups"]]  # type: ignore[attr-defined]
        assert names == ["Cancelled", "Done", "Important", "In Progress", "Question", "Todo", "Unknown"]
        ordered = await descriptions(vg, "sort by status.name")
        assert ordered == ["dropped", "finished", "urgent thing", "started", "ask Ann", "plain", "odd mark"]
        query = "group by function task.status.name + ' -> ' + task.status.nextSymbol"
        out = await run(vg, "path includes Work\n" + query)
        assert {g["names"][0] for g in out["groups"]} >= {"Important -> x", "Question ->  ", "Todo -> x"}  # type: ignore[attr-defined]
        assert await descriptions(vg, "filter by function task.status.name === 'Unknown'") == ["odd mark"]
