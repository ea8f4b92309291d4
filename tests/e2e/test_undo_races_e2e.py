"""E2E (both protocol eras, two SDK clients over real HTTP, a human approving each through its
client) for two agents undoing one plan run at once: one undoes it, the other is answered
`conflict`, "already undone", naming the undo run (tests/tools/sessions/test_undo_races.py: the
dispatch chain and two servers). Both calls are held after their ACL checks until both are there."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import ok
from tests.e2e.test_bridge_confirm_e2e import answering
from tests.tools.sessions.test_undo_races import PLAN, _barrier


async def test_two_agents_undoing_one_run_at_once_undo_it_once(
    make_vault: Callable[..., Path], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    before = snapshot(root)
    asked: list[str] = []
    async with (
        e2e(root, index={"watch": False}) as (url, harness),
        Client(url, mode=mode, elicitation_callback=answering("accept", asked)) as first,  # type: ignore[arg-type]
        Client(url, mode=mode, elicitation_callback=answering("accept", asked)) as second,  # type: ignore[arg-type]
    ):
        run = await ok(first, "execute_plan", plan=PLAN)
        _barrier(monkeypatch, 2)
        results: dict[str, Any] = {}

        async def undo(name: str, client: Any, args: dict[str, Any]) -> None:
            results[name] = await client.call_tool("undo_last_plan", args)

        async with anyio.create_task_group() as tg:
            tg.start_soon(undo, "latest", first, {})
            tg.start_soon(undo, "by_id", second, {"run_id": run["run_id"]})
        won = [r.structured_content for r in results.values() if not r.is_error]
        lost = [r.structured_content["error"] for r in results.values() if r.is_error]
        assert len(won) == 1 and len(lost) == 1, results
        assert won[0]["run_id"] == run["run_id"] and won[0]["undo_run_id"]
        assert lost[0]["code"] == "conflict" and "already undone" in lost[0]["message"], lost
        assert lost[0]["details"]["undone_by"] == won[0]["undo_run_id"]
        assert snapshot(root) == before
        rows = await harness.app.state.fetchall("SELECT id FROM plan_runs WHERE undoes = ?", (run["run_id"],))
        assert [r[0] for r in rows] == [won[0]["undo_run_id"]]
