"""tests/tools/sessions/test_plan_memory_order.py over HTTP with the SDK client: a plan making a
memory entity, then relating another entity to it (no `dependsOn`), runs whole; before s75 the
relation ran beside the create and failed after validate_plan passed the plan."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.sessions.test_plan_memory_order import ANN, PLAN


async def test_a_relation_to_an_entity_the_plan_makes_runs_after_it_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault({"Memory/Ann.md": ANN})) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        assert (await ok(c, "validate_plan", plan=PLAN))["valid"]
        run = await ok(c, "execute_plan", plan=PLAN)
        assert run["status"] == "done", run
        assert "knows [[Memory/Bob]]" in h.read("Memory/Ann.md")
