"""A journaled change that outlives the stop's drain, on an app object started again.

`PlanRuns.stop` waits `DRAIN_S` for journaled changes to roll back, then closes the journal under
the ones still running and readies it for the next start (`Journal.reopen`). Before, `reopen`
cleared the stop flag: a change held past the drain (here a rename held in its commit phase)
went on as if no stop had happened once released — its next record met the closed journal
(RuntimeError: internal_error), and its run's end overwrote what the next start's recovery had
made of it (`interrupted`, rolled back) with `failed`. Now a change whose journal a stop closed
stays stopped (`server_stopping`) and leaves its run to the next start's recovery."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from service.app import VaultgateApp
from service.dispatch.context import ToolResult
from service.plans import runs
from tests.conftest import Harness, settings_for, snapshot
from tests.long_changes import Hold

VAULT = {"A.md": "# A\n", "B.md": "See [[A]].\n", "C.md": "Also [[A]].\n"}


async def test_a_change_past_the_drain_stays_stopped_after_a_restart(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runs, "DRAIN_S", 0.05)
    root = make_vault(VAULT)
    before = snapshot(root)
    hold = Hold("commit", 1, label="rename_note")  # the rename's first file changed, two to go
    app = VaultgateApp(settings_for(root), step_hook=hold)
    results: list[ToolResult] = []
    await app.start()
    try:
        vg = Harness(app, root)
        await vg.indexed()

        async def rename(args: dict[str, Any]) -> None:
            results.append(await app.dispatcher.call("rename_note", args, principal=vg.principal))

        async with anyio.create_task_group() as tg:
            tg.start_soon(rename, {"path": "A", "new_path": "Z"})
            with anyio.fail_after(30):
                await hold.reached.wait()
            await app.stop()  # the drain ends with the rename still held: the journal closes under it
            await app.start()  # the same object again: the start rolls the held rename's run back
            assert snapshot(root) == before
            hold.release.set()
        (result,) = results
        assert result.is_error and result.structured is not None
        assert result.structured["error"]["code"] == "server_stopping", result.structured
        assert snapshot(root) == before  # the released rename wrote nothing more
        rows = await app.state.fetchall("SELECT kind, status, undone_by IS NOT NULL FROM plan_runs ORDER BY rowid")
        assert [tuple(r) for r in rows] == [("bulk", "interrupted", 1), ("undo", "done", 0)]
        await vg.ok("rename_note", path="A", new_path="Z")  # the restarted app takes journaled changes
        assert (root / "B.md").read_text() == "See [[Z]].\n"
    finally:
        await app.stop()
