"""tests/tools/memory/test_plan_other_spelling.py over HTTP with the SDK client (both eras): a plan
that makes an entity and then names it in another letter case or Unicode spelling is valid and
runs, as the same calls one by one do (R6 s76 #2: validate_plan answered note_not_found and
execute_plan refused it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_plan_other_spelling import ANN, _plan


async def test_a_plan_finds_an_entity_made_earlier_in_another_spelling_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    vault = make_vault({"Welcome.md": "# Welcome\n", "Memory/Ann.md": ANN})
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        for name in ("made, then observed in lower case", "made in NFC, then observed in NFD"):
            plan = _plan(name)
            checked = await ok(c, "validate_plan", plan=plan)
            assert checked["valid"] and checked["problems"] == [], checked
            run = await ok(c, "execute_plan", plan=plan)
            assert run["status"] == "done", run
        assert "Plays chess" in h.read("Memory/Zed.md") and "Plays chess" in h.read("Memory/Zoë.md")
        assert sorted(p.name for p in (h.root / "Memory").glob("*.md")) == ["Ann.md", "Zed.md", "Zoë.md"]
