"""An applied contradiction finding stays undoable while another agent adds to the same entity, end
to end: a real uvicorn server, two SDK clients over HTTP (both protocol eras). Found by U8 (s75)
driving a served vault: the finding's supersede was written in the other agent's group commit,
its plan run journaled nothing and undo_last_plan reached back to an older run; the other way
round, its undo removed the other agent's acknowledged observation (see
tests/tools/memory/test_plan_step_writes_alone.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import Harness, e2e
from tests.e2e.calls import error, ok

NOTE = "Memory/Ann.md"
VAULT = {
    NOTE: "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n"
    "- Lives in Oslo [recorded:: 2024-01-05] ^m-1\n- Lives in Bergen [recorded:: 2025-03-01] ^m-2\n",
}
FACT = "Ann keeps bees"


async def _token(h: Harness, refused: dict[str, object]) -> str:
    """A token for the call that answered `refused` (elicit_required), minted as `vaultgate confirm` does."""
    details = refused["details"]
    assert isinstance(details, dict)
    confirmations = h.app.services.confirmations
    [request] = await confirmations.pending(details["args_hash"], details["vault"])
    token, _ = await confirmations.mint(request, minted_by="test")
    return str(token)


async def _waiting_for(lock: asyncio.Lock, count: int) -> None:
    for _ in range(6000):
        if len(lock._waiters or ()) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} calls never waited for the lock of {NOTE}")


async def test_an_applied_finding_written_after_another_agents_add_is_undone(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault(VAULT)
    async with e2e(root) as (url, h), Client(url, mode=mode) as agent, Client(url, mode=mode) as other:  # type: ignore[arg-type]
        await ok(agent, "run_consolidation", jobs=["contradictions"])
        [finding] = (await ok(agent, "list_findings", kind="contradiction"))["items"]
        lock = h.app.services.memory_writes.locks("main", NOTE)  # the app's lock of the note
        async with lock:
            add = asyncio.create_task(
                ok(other, "add_observations", observations=[{"entityName": "Ann", "contents": [FACT]}])
            )
            await _waiting_for(lock, 1)
            apply = asyncio.create_task(ok(agent, "apply_finding", finding_id=finding["id"]))
            await _waiting_for(lock, 2)
        await add
        applied = await apply
        assert applied["status"] == "applied"
        text = (root / NOTE).read_text()
        assert FACT in text and "[superseded_by:: ^m-2]" in text
        asked = await error(agent, "undo_last_plan")
        assert asked["code"] == "elicit_required"
        undone = await ok(agent, "undo_last_plan", elicit_token=await _token(h, asked))
        assert undone["run_id"] == applied["run"]["run_id"] and undone["restored"] == [NOTE]
        text = (root / NOTE).read_text()
        assert "superseded_by" not in text and FACT in text, text
