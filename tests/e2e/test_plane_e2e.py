"""The consolidation plane end to end: real uvicorn, the SDK's Streamable HTTP client, both eras.

run_consolidation with progress, its findings listed, a finding whose plan deletes a note (two
entities that are one, merged) applied with a human's confirmation, then undone with
undo_last_plan — back to the same bytes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok

VAULT = {
    "Memory/Bob.md": "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n- Lives in Berlin ^m-1\n",
    "Memory/Bobs.md": "---\nname: Bobs\nentityType: person\n---\n# Bobs\n\n## Observations\n- Has a dog ^m-2\n",
    "Home.md": "# Home\n\nSee [[Hmoe]].\n",
}


async def test_a_run_its_findings_one_applied_with_confirmation_and_undone(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        before = snapshot(h.root)
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            seen: list[float] = []

            async def on_progress(done: float, total: float | None, message: str | None) -> None:
                seen.append(done)

            result = await c.call_tool("run_consolidation", {"wait": True}, progress_callback=on_progress)
            run = result.structured_content
            assert not result.is_error and run is not None and run["status"] == "done", run
            assert seen and seen == sorted(seen)
            listed = await ok(c, "list_findings", kind="duplicate_entity")
            finding = listed["items"][0]
            assert finding["detail"] == {"keep": "Bob", "merge": "Bobs", "observations": 1}
            broken = await ok(c, "list_findings", kind="broken_link")
            assert broken["items"][0]["detail"]["target"] == "Hmoe"
            ask = await error(c, "apply_finding", finding_id=finding["id"])
            assert ask["code"] == "elicit_required" and "Memory/Bobs.md" in ask["message"] + str(ask["details"])
            token = await h.token_for("apply_finding", finding_id=finding["id"])
            applied = await ok(c, "apply_finding", finding_id=finding["id"], elicit_token=token)
            assert applied["status"] == "applied" and not (h.root / "Memory/Bobs.md").exists()
            assert "Has a dog" in h.read("Memory/Bob.md")
            status = await ok(c, "plane_status")
            assert status["findings"]["duplicate_entity"] == {"applied": 1}
            run_id = applied["run"]["run_id"]  # the harness mints as another caller: it names the run
            token = await h.token_for("undo_last_plan", run_id=run_id)
            await ok(c, "undo_last_plan", run_id=run_id, elicit_token=token)
        assert snapshot(h.root) == before
