"""A running plan as an MCP task: tasks/get while it runs, tasks/cancel, then the cancelled task.

In process, through the handlers the server registers (`service.protocol.tasks.PlanTasks`),
with the plan held at its move (tests/long_changes.py `Hold`) so the task is still running when
it is polled and cancelled; the end-to-end tests over HTTP are in tests/e2e/test_plan_tasks_e2e.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from service.app import VaultgateApp
from service.protocol.tasks import CAPABILITIES_META, EXTENSION, PlanTasks, TaskIdParams
from service.types import Principal
from tests.conftest import Harness, settings_for
from tests.long_changes import Hold
from tests.plan_vault import plan_files
from tests.tools.sessions.test_plan_cancel import _plan, held


def _ctx(version: str = "2026-07-28", declared: bool = True) -> Any:
    meta = {CAPABILITIES_META: {"extensions": {EXTENSION: {}}}} if declared else {}
    return SimpleNamespace(protocol_version=version, params={"_meta": meta}, request=None, method="tasks/get")


async def test_a_running_task_is_polled_cancelled_and_ends_cancelled(make_vault: Callable[..., Path]) -> None:
    hold = Hold("commit", 1)
    async with held(make_vault(plan_files()), hold) as vg:
        vg.principal = Principal.local("stdio")  # the caller the in-process handlers see
        tasks = PlanTasks(vg.app.dispatcher, vg.app.plans)
        token = await vg.token_for("execute_plan", plan=_plan(), background=True)
        run = await vg.ok("execute_plan", plan=_plan(), background=True, elicit_token=token)
        await hold.reached.wait()
        which = TaskIdParams(taskId=run["run_id"])
        working = await tasks.get(_ctx(), which)
        assert working["status"] == "working" and "result" not in working and working["ttlMs"] is None
        legacy = await tasks.get(_ctx("2025-11-25", declared=False), which)
        assert legacy["status"] == "working" and "ttl" in legacy and "pollInterval" in legacy
        assert await tasks.cancel(_ctx(), which) == {}
        hold.release.set()
        await vg.app.plans.wait(run["run_id"])
        ended = await tasks.get(_ctx(), which)
        assert ended["status"] == "cancelled" and "result" not in ended
        with pytest.raises(MCPError) as missing:
            await tasks.get(_ctx(declared=False), which)  # 2026-07-28 without the extension
        assert missing.value.error.code == -32021
        with pytest.raises(MCPError) as unknown:
            await tasks.get(_ctx(), TaskIdParams(taskId="no-such-task"))
        assert unknown.value.error.code == types.INVALID_PARAMS


async def test_tasks_cancel_stops_a_run_in_a_vault_that_confirms_changes(make_vault: Callable[..., Path]) -> None:
    """A stop is no change to confirm: in a vault whose write_mode asks a human for every change,
    tasks/cancel still stops the run (it once went through cancel_plan's chain, which asked a human
    it had no session to ask: -32602 elicit_required, and the run went on to the end)."""
    hold = Hold("commit", 1)
    root = make_vault(plan_files())
    app = VaultgateApp(
        settings_for(root, vaults=[{"id": "main", "path": root, "write_mode": "confirm"}]), step_hook=hold
    )
    async with app.running():
        vg = Harness(app, root)
        await vg.indexed()
        vg.principal = Principal.local("stdio")
        tasks = PlanTasks(vg.app.dispatcher, vg.app.plans)
        token = await vg.token_for("execute_plan", plan=_plan(), background=True)
        run = await vg.ok("execute_plan", plan=_plan(), background=True, elicit_token=token)
        await hold.reached.wait()
        which = TaskIdParams(taskId=run["run_id"])
        assert await tasks.cancel(_ctx(), which) == {}
        hold.release.set()
        await vg.app.plans.wait(run["run_id"])
        assert (await tasks.get(_ctx(), which))["status"] == "cancelled"
