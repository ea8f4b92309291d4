"""A claim stated again with a detail added is no contradiction: "Works at Acme" then "Works at
Acme as a nurse", "Lives in Paris" then "Lives in Paris with Ann", "New York" then "New York City"
gave the contradictions job another employer or city, and its plan would have marked a fact that
still holds as superseded. Another value is still one ("Works at Acme" / "Works for Globex"), as
is the same value after another ("Acme", "Globex", then "Acme as a nurse": holds again)."""

from __future__ import annotations

from typing import Any

from tests.conftest import Harness

DETAILS = [
    ("Works at Acme", "Works at Acme as a nurse"),
    ("Lives in Paris", "Lives in Paris with Ann"),
    ("Lives in New York", "Lives in New York City"),
    ("Works as a designer", "Works as a designer at Globex since 2019"),
    ("Is employed by Hooli", "Works for Hooli from home"),
]
OTHER = [
    ("Works at Acme", "Works for Globex"),
    ("Lives in Paris", "Is based in Rome near the old harbour"),
    ("Works as a nurse", "Role is teacher"),
]


async def _entity(vg: Harness, name: str, texts: list[str]) -> None:
    await vg.ok("create_entities", entities=[{"name": name, "entityType": "person", "observations": []}])
    for n, text in enumerate(texts):
        batch: list[dict[str, Any]] = [{"entityName": name, "contents": [text], "date": f"202{n}-01-01"}]
        await vg.ok("add_observations", observations=batch)


async def test_a_detail_added_to_a_claim_is_no_contradiction(vg: Harness) -> None:
    for i, (old, new) in enumerate([*DETAILS, *OTHER]):
        await _entity(vg, f"P{i}", [old, new])
    await vg.ok("run_consolidation", wait=True, jobs=["contradictions"])
    found = (await vg.ok("list_findings", limit=100))["items"]
    contradictions = {(f["detail"]["older"], f["detail"]["newer"]) for f in found if f["kind"] == "contradiction"}
    assert contradictions == set(OTHER)


async def test_a_claim_stated_again_after_a_detail_is_a_repeat(vg: Harness) -> None:
    """add_observations reads a claim stated again as holding again only when another value came
    between: 'Works at Acme', 'Works at Acme in Berlin', then 'Works at Acme' is a repeat (it was
    recorded twice, the detail read as another employer); after 'Works at Globex' it holds again."""
    await _entity(vg, "Ann", ["Works at Acme", "Works at Acme in Berlin", "Works at Acme"])
    assert vg.read("Memory/Ann.md").count("- Works at Acme [") == 1
    await _entity(vg, "Bo", ["Works at Acme", "Works at Globex", "Works at Acme"])
    assert vg.read("Memory/Bo.md").count("- Works at Acme [") == 2
