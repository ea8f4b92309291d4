"""Two agents creating one entity at once (M4 s71): create_entities reports a name that exists in
`existing`, and a name another call made while this one ran is such a name too. The loser of the
race answered `already_exists` ("memory entity 'Melanie' exists", with the hint about
create_note's if_exists), and a call creating several entities, one of them raced, made none."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import Harness


@pytest.mark.covers("create_entities", "success")
async def test_two_agents_creating_one_entity_at_once_both_succeed(vg: Harness) -> None:
    first, second = await asyncio.gather(
        vg.ok("create_entities", entities=[{"name": "Melanie", "entityType": "person", "observations": ["Paints"]}]),
        vg.ok("create_entities", entities=[{"name": "Melanie", "entityType": "person", "observations": ["Runs"]}]),
    )
    created = [e["name"] for out in (first, second) for e in out["created"]]
    existing = [n for out in (first, second) for n in out["existing"]]
    assert created == ["Melanie"] and existing == ["Melanie"]
    winner = first if first["created"] else second
    note = vg.read("Memory/Melanie.md")
    assert note.count("## Observations") == 1
    assert winner["created"][0]["observations"][0]["text"] in note
    assert ("- Paints" in note) != ("- Runs" in note)  # the other's are not added, as for a name that was there


async def test_a_raced_name_does_not_undo_the_others_of_its_call(vg: Harness) -> None:
    both, one = await asyncio.gather(
        vg.ok(
            "create_entities",
            entities=[{"name": "Melanie", "entityType": "person"}, {"name": "Caroline", "entityType": "person"}],
        ),
        vg.ok("create_entities", entities=[{"name": "Melanie", "entityType": "person"}]),
    )
    assert sorted(e["name"] for out in (both, one) for e in out["created"]) == ["Caroline", "Melanie"]
    assert "Caroline" in [e["name"] for e in both["created"]]
    assert both["existing"] + one["existing"] == ["Melanie"]
    opened = await vg.ok("open_nodes", names=["Melanie", "Caroline"])
    assert [e["name"] for e in opened["entities"]] == ["Melanie", "Caroline"] and opened["missing"] == []


async def test_a_case_twin_made_meanwhile_is_still_refused(vg: Harness) -> None:
    results = await asyncio.gather(
        vg.call("create_entities", entities=[{"name": "Ann Lee", "entityType": "person"}]),
        vg.call("create_entities", entities=[{"name": "ann lee", "entityType": "person"}]),
    )
    refused = [r for r in results if r.is_error]
    assert len(refused) == 1 and refused[0].structured is not None
    assert refused[0].structured["error"]["code"] == "already_exists"
    assert len(list((vg.root / "Memory").glob("*.md"))) == 1
