"""tests/tools/sessions/test_plan_memory_entities_found.py over HTTP with the SDK client (both
eras): a plan whose memory step names an entity that exists nowhere is refused by validate_plan and
execute_plan before any step runs (R5 s75: it validated, then stopped half done), while one making
the entity first passes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.sessions.test_plan_memory_entities_found import ANN, NOTE

RELATE = {"relations": [{"from": "Nobody", "to": "Welcome", "relationType": "knows"}]}


async def test_a_plan_naming_no_entity_is_refused_before_it_runs_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    vault = make_vault({"Welcome.md": "# Welcome\n", "Memory/Ann.md": ANN})
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        plan = {"goal": "g", "steps": [NOTE, {"id": "r", "tool": "create_relations", "args": RELATE}]}
        checked = await ok(c, "validate_plan", plan=plan)
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("r", "note_not_found")], checked
        refused = await c.call_tool("execute_plan", {"plan": plan})
        assert refused.is_error, refused
        assert not (h.root / "N1.md").exists()
        make = {"entities": [{"name": "Nobody", "entityType": "person"}]}
        plan["steps"].insert(1, {"id": "e", "tool": "create_entities", "args": make})
        assert (await ok(c, "validate_plan", plan=plan))["valid"]
        run = await ok(c, "execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert "knows [[Welcome]]" in h.read("Memory/Nobody.md"), h.read("Memory/Nobody.md")
