"""validate_plan for an agent whose token is narrowed to a folder, of a memory step on an entity
outside it, end to end: a real uvicorn server with JWT identities and the SDK client over HTTP,
both protocol eras (tests/tools/sessions/test_plan_denied_entity_changes_nothing.py through the
dispatch chain). The step is refused (`acl_denied`) and the effects list no change of the note;
before (U10 s94) they said the plan would create it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.e2e.test_shared_memory_agents_e2e import AUTH, agent
from tests.tools.sessions.test_plan_denied_entity_changes_nothing import ANN, STEPS


async def test_a_narrowed_agents_plan_on_a_memory_entity_previews_no_change(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault({"Memory/Ann Lee.md": ANN, "Projects/A.md": "# A\n"})
    narrowed = "read:vault/Projects/** write:vault/Projects/**"
    async with e2e(root, auth=AUTH) as (url, h), agent(url, "carol", mode, scope=narrowed) as carol:
        await h.indexed()
        step = {"id": "s", "tool": "add_observations", "args": STEPS["add_observations"]}
        checked = await ok(carol, "validate_plan", plan={"goal": "g", "steps": [step]})
        assert {(p["step"], p["code"]) for p in checked["problems"]} == {("s", "acl_denied")}, checked
        assert checked["effects"]["files_created"] == [] and checked["effects"]["files_modified"] == []
        assert "Leads Alpha" not in str(checked)
