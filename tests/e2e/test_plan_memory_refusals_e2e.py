"""tests/tools/sessions/test_plan_memory_refusals_foreseen.py over HTTP with the SDK client (both
eras): a plan deleting an observation and then superseding it is refused by validate_plan and by
execute_plan before any step runs (before s78 it validated, and the run deleted the observation,
then stopped at the supersede, half done)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.e2e.test_plan_previews_e2e import _changed
from tests.tools.sessions.test_plan_memory_deletes_foreseen import MEMORY, _forget, _supersede

PLAN = {"goal": "g", "steps": [_forget("d", "Ann", "Lives in Oslo"), _supersede("s", "Ann", "Lives in Oslo", "^m-1")]}


async def test_a_supersede_of_a_deleted_observation_is_refused_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(MEMORY)) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        start = snapshot(h.root)
        checked = await ok(c, "validate_plan", plan=PLAN)
        assert checked["valid"] is False, checked
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("s", "note_not_found")], checked
        refused = await error(c, "execute_plan", plan=PLAN)
        assert refused["code"] == "validation_error", refused
        assert _changed(start, snapshot(h.root)) == set()


async def test_a_merge_onto_a_block_id_an_earlier_step_carried_is_refused_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """s79: an earlier merge carries Dee's ^d-1 into Ann; Eve's ^d-1 is another fact, so the later
    merge is the run's block_id_taken: validate_plan names it, execute_plan runs nothing."""
    from tests.tools.sessions.test_plan_merge_block_ids_foreseen import REFUSED, VAULT

    plan = {"goal": "g", "steps": REFUSED["an earlier merge carried the id"]}
    async with e2e(make_vault(VAULT)) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        start = snapshot(h.root)
        checked = await ok(c, "validate_plan", plan=plan)
        assert checked["valid"] is False, checked
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("g", "validation_error")], checked
        details = checked["problems"][0]["details"]  # the run's error's (E4 s84; the message said only the code)
        assert (details["reason"], details["block_ids"]) == ("block_id_taken", ["d-1"]), checked
        assert "uses 1 of the merged entity's block ids" in checked["problems"][0]["message"], checked
        refused = await error(c, "execute_plan", plan=plan)
        assert refused["code"] == "validation_error", refused
        assert _changed(start, snapshot(h.root)) == set()
