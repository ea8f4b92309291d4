"""The `tasks` domain meta-tool (facade mode `domain`) runs the domain's tools and answers their errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started


@pytest.mark.covers("tasks", "success")
@pytest.mark.covers("tasks", "failure")
async def test_tasks_meta_tool_lists_tasks_and_answers_the_inner_error(make_vault: Callable[..., Path]) -> None:
    files = {"T.md": "- [ ] one 📅 2026-11-30\n"}
    async with started(make_vault(files), tool_facade={"mode": "domain"}) as vg:
        await vg.indexed()
        out = await vg.ok("tasks", operation="list_tasks", arguments={})
        assert out["tool"] == "list_tasks" and out["result"]["items"][0]["due"] == "2026-11-30"
        await vg.err("tasks", "note_not_found", operation="list_tasks", arguments={"note": "Nope"})
        await vg.err("tasks", "validation_error", operation="read_note", arguments={"path": "T"})
