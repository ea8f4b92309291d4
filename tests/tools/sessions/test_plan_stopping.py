"""A plan running in a request when the server begins to stop (the first SIGTERM over HTTP:
`service.serve._on_signal` calls `PlanRuns.stopping`): it stops after the call in flight, as the
same plan does when the stop reaches `PlanRuns.stop` (stdio), instead of writing its later steps'
files while uvicorn waits out its grace period."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from service.app import VaultgateApp
from service.dispatch.context import ToolResult
from tests.conftest import Harness, settings_for
from tests.long_changes import Hold

VAULT = {"A.md": "# A\n", "B.md": "See [[A]].\n", "Log.md": "# Log\n"}
PLAN = {
    "goal": "rename and log",
    "steps": [
        {"id": "mv", "tool": "rename_note", "args": {"path": "A", "new_path": "C"}},
        {"id": "log", "tool": "append_note", "args": {"path": "Log", "content": "renamed\n"}, "dependsOn": ["mv"]},
    ],
}


async def test_a_foreground_plan_stops_after_its_call_in_flight(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    hold = Hold("commit", 2, label="rename_note")  # the rename's last file written: it completes
    app = VaultgateApp(settings_for(root), step_hook=hold)
    async with app.running():
        vg = Harness(app, root)
        await vg.indexed()
        results: list[ToolResult] = []

        async def run(args: dict[str, Any]) -> None:
            results.append(await app.dispatcher.call("execute_plan", args, principal=vg.principal))

        async with anyio.create_task_group() as tg:
            tg.start_soon(run, {"plan": PLAN})
            with anyio.fail_after(30):
                await hold.reached.wait()
            app.plans.stopping()  # what the first signal does, while uvicorn's grace runs
            hold.release.set()
        (result,) = results
        assert not result.is_error, result.structured
        out = result.structured
        assert out["status"] == "cancelled", out
        assert [(s["id"], s["status"]) for s in out["steps"]] == [("mv", "ok"), ("log", "cancelled")]
        assert (root / "Log.md").read_text() == VAULT["Log.md"]  # the later step wrote nothing
        assert (root / "C.md").exists()


async def test_a_plan_asked_after_the_stop_began_writes_nothing(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    app = VaultgateApp(settings_for(root))
    async with app.running():
        vg = Harness(app, root)
        await vg.indexed()
        app.plans.stopping()
        plan = {
            "goal": "log",
            "steps": [{"id": "log", "tool": "append_note", "args": {"path": "Log", "content": "x\n"}}],
        }
        for background in (False, True):
            error = await vg.err("execute_plan", "server_stopping", plan=plan, background=background)
            assert error["retryable"] is True
        assert (root / "Log.md").read_text() == VAULT["Log.md"]
        assert await app.state.fetchall("SELECT id FROM plan_runs") == []
