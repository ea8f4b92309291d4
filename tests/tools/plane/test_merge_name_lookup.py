"""A duplicate_entity finding gets a merge plan only when each entity's name leads the memory
tools to its own note: the name lookup tries the file the name spells first, so with `Ann` in
Memory/Foo.md and `ann` in Memory/Ann.md the plan's steps reached Memory/Ann.md for both, added
its facts to itself and trashed it: applied, with `plays oboe` lost (review R3 s63 #8)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


def _named(name: str, observation: str, created: str) -> str:
    return f'---\nname: "{name}"\nentityType: person\ncreated: "{created}"\n---\n## Observations\n- {observation}\n'


async def test_a_name_that_finds_another_note_gets_no_plan(make_vault: Callable[..., Path]) -> None:
    keep = _named("Ann", "keeps bees", "2026-01-01T00:00:00Z")
    other = _named("ann", "plays oboe", "2026-02-01T00:00:00Z")
    root = make_vault({"Home.md": "# Home\n", "Memory/Foo.md": keep, "Memory/Ann.md": other})
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        [found] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
        assert sorted(found["paths"]) == ["Memory/Ann.md", "Memory/Foo.md"] and not found.get("plan")
        await vg.err("apply_finding", "validation_error", finding_id=found["id"])
    assert (root / "Memory" / "Ann.md").read_text(encoding="utf-8") == other
    assert (root / "Memory" / "Foo.md").read_text(encoding="utf-8") == keep
