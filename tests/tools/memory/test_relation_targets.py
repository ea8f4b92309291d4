"""create_relations' target through the dispatch chain (T1 item 13): a bare name that fits two
notes is a note, answered `ambiguous_note` with the candidates as the note tools answer it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


async def test_a_target_that_fits_two_notes_is_ambiguous_with_candidates(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    for rel in ("Projects/Plan.md", "Other/Plan.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# Plan\n", encoding="utf-8")
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("create_entities", entities=[{"name": "Fan", "entityType": "person"}])
        before = vg.snapshot()
        error = await vg.err(
            "create_relations", "ambiguous_note", relations=[{"from": "Fan", "to": "Plan", "relationType": "reads"}]
        )
        assert sorted(error["details"]["candidates"]) == ["Other/Plan.md", "Projects/Plan.md"]
        assert error["details"]["field"] == "relations[0].to" and vg.snapshot() == before
        out = await vg.ok(
            "create_relations", relations=[{"from": "Fan", "to": "Projects/Plan", "relationType": "reads"}]
        )
        assert len(out["created"]) == 1
        unknown = await vg.err(
            "create_relations", "validation_error", relations=[{"from": "Fan", "to": "Nowhere", "relationType": "x"}]
        )
        assert unknown["details"]["reason"] == "unknown_endpoint"
