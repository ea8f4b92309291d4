"""index_status' `open_tasks` counts the tasks written `- [ ]`, and its description says so: it
said "Tasks not yet done", while `[/]` (in progress) and `[X]` (an unknown status, to do for the
Tasks plugin) are not done either and are not counted; list_tasks lists them as open. Through
the dispatcher: the figures, and the description tools/list gives."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NOTE = "# T\n\n- [ ] a\n- [/] b\n- [X] c\n- [x] d\n- [-] e\n"


async def test_open_tasks_says_what_it_counts(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"T.md": NOTE})) as vg:
        await vg.indexed()
        status = await vg.ok("index_status")
        assert (status["tasks"], status["open_tasks"]) == (5, 1)
        listed = await vg.ok("list_tasks", status=["todo", "in_progress"])
        assert sorted(t["text"] for t in listed["items"]) == ["a", "b", "c"]
        tools = (await vg.app.dispatcher.on_list_tools(None, None)).tools  # type: ignore[arg-type]
        [tool] = [t for t in tools if t.name == "index_status"]
        described = json.dumps(tool.output_schema)
        assert "Tasks written `- [ ]`" in described and "`list_tasks` reads them as open" in described
