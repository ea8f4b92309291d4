"""apply_finding of a finding that has no plan, or that the caller may not see, says what to do,
through the dispatch chain (U10 s94): before, a duplicate of two lines written by hand (no block
ids) answered "this finding has no plan" with the generic hint to check the arguments against the
input schema, and a finding about notes outside a narrowed token's folder a hint to check the
path with list_notes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from service.types import Principal
from tests.conftest import started
from tests.tools.plane.test_plane import findings, of_kind, run

HAND = {
    "Memory/Cara.md": "---\nname: Cara\nentityType: person\n---\n# Cara\n\n## Observations\n"
    "- Likes tea\n- likes tea.\n- Lives in Oslo\n- Lives in Bergen\n",
    "Memory/ann.md": "---\nname: ann\nentityType: person\n---\n# ann\n\n## Observations\n- Likes jam ^m-1\n",
    "Memory/Ann.md": "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Likes ham ^m-2\n",
}


async def test_a_finding_without_a_plan_says_why_and_what_a_person_can_do(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(HAND)) as vg:
        await vg.indexed()
        await run(vg, jobs=["duplicates", "contradictions"])
        items = await findings(vg)
        for kind, words in (
            ("duplicate", "block id"),
            ("contradiction", "block id"),
            ("duplicate_entity", "by hand"),
        ):
            [item] = of_kind(items, kind)
            assert item["plan"] is None, item
            for dry_run in (False, True):
                refused = await vg.err("apply_finding", "validation_error", finding_id=item["id"], dry_run=dry_run)
                assert refused["details"]["kind"] == kind and words in refused["hint"], refused
                assert "input schema" not in refused["hint"], refused


async def test_a_finding_the_caller_may_not_see_points_at_list_findings(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({**HAND, "Projects/A.md": "# A\n"})) as vg:
        await vg.indexed()
        await run(vg, jobs=["duplicates"])
        [item] = of_kind(await findings(vg), "duplicate")
        vg.principal = Principal(
            subject="carol", scopes=frozenset({"read:vault/Projects/**", "write:vault/Projects/**"})
        )
        for tool in ("apply_finding", "dismiss_finding"):
            refused = await vg.err(tool, "note_not_found", finding_id=item["id"])
            assert "list_findings" in refused["hint"] and "Memory" not in str(refused), refused
