"""get_plan_run of a run consolidation's auto_apply made (caller vaultgate-plane) over HTTP with the
SDK client, both eras: an admin caller (auth none: every scope) sees its steps; it answered not_found
to everyone before (tests/tools/sessions/test_plan_run_admin_reads.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from service.obs.sessions import caller_hash
from tests.conftest import e2e
from tests.e2e.calls import ok

NOTE = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Likes tea ^m-a\n- likes tea. ^m-b\n"


async def test_an_admin_reads_an_auto_applied_run(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Memory/Ann.md": NOTE}), plane={"auto_apply": ["duplicate"]}) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            out = await ok(c, "run_consolidation", wait=True, jobs=["duplicates"])
            assert len(out["auto_applied"]) == 1, out
            [[run_id]] = await h.app.state.fetchall(
                "SELECT id FROM plan_runs WHERE caller = ?", (caller_hash("vaultgate-plane"),)
            )
            seen = await ok(c, "get_plan_run", run_id=run_id)
            assert seen["status"] == "done" and [s["tool"] for s in seen["steps"]] == ["delete_observations"]
