"""index_status' `open_tasks` counts the tasks not yet done, as list_tasks lists them open: `[ ]`,
`[/]` (in progress) and `[X]` (an unknown status, to do for the Tasks plugin), and its description
says so. (It counted `- [ ]` only and said so, 1 here; session 73 made every open count read one
definition, tests/tools/tasks/test_open_tasks_agree.py.) Through the dispatcher: the figures, and
the description tools/list gives."""

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
        assert (status["tasks"], status["open_tasks"]) == (5, 3)
        listed = await vg.ok("list_tasks", status=["todo", "in_progress"])
        assert sorted(t["text"] for t in listed["items"]) == ["a", "b", "c"]
        tools = (await vg.app.dispatcher.on_list_tools(None, None)).tools  # type: ignore[arg-type]
        [tool] = [t for t in tools if t.name == "index_status"]
        described = json.dumps(tool.output_schema)
        assert "Tasks not yet done" in described and "`[/]`" in described and "`not done`" in described
