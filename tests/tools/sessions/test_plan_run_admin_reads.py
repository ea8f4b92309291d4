"""get_plan_run of a run another caller made: an admin sees it (as undo_last_plan {run_id} already
reverses it), nobody else does. A finding `[plane] auto_apply` applies runs its plan as
vaultgate-plane; killed mid-apply, the finding is opened again naming the run
(`detail.interrupted_run_id`) and docs/consolidation.md says get_plan_run shows what it changed,
but it answered not_found to every caller, an admin included (R7, session 77)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.obs.sessions import caller_hash
from service.types import Principal
from tests.conftest import Harness, started

NOTE = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Likes tea ^m-a\n- likes tea. ^m-b\n"
WRITER = frozenset({"read:vault", "write:vault", "delete:vault"})


async def _as(vg: Harness, principal: Principal, tool: str, **args: Any) -> dict[str, Any]:
    result = await vg.app.dispatcher.call(tool, args, principal=principal)
    assert result.structured is not None
    return result.structured


async def test_an_admin_reads_the_planes_run_and_no_one_else(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Ann.md": NOTE}), plane={"auto_apply": ["duplicate"]}) as vg:
        await vg.indexed()
        out = await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        assert len(out["auto_applied"]) == 1, out
        [[run_id]] = await vg.app.state.fetchall(
            "SELECT id FROM plan_runs WHERE caller = ?", (caller_hash("vaultgate-plane"),)
        )
        admin = Principal("root", frozenset({*WRITER, "admin"}))
        seen = await _as(vg, admin, "get_plan_run", run_id=run_id)
        assert seen["run_id"] == run_id and seen["status"] == "done", seen
        assert [s["tool"] for s in seen["steps"]] == ["delete_observations"], seen
        refused = await _as(vg, Principal("bob", WRITER), "get_plan_run", run_id=run_id)
        assert refused["error"]["code"] == "not_found"
        cancel = await _as(vg, admin, "cancel_plan", run_id=run_id)  # still the caller's own runs only
        assert cancel["error"]["code"] == "not_found"
