"""create_entities reports every name it is given: two names that differ only in case are two
entities, as two calls make them (the store tells them apart), and a name given twice is made
once."""

from __future__ import annotations

from tests.conftest import Harness


async def test_two_names_that_differ_in_case_are_two_entities(vg: Harness) -> None:
    out = await vg.ok(
        "create_entities",
        entities=[
            {"name": "Ann Lee", "entityType": "person", "observations": ["Likes tea"]},
            {"name": "ann lee", "entityType": "person", "observations": ["Likes coffee"]},
            {"name": "Ann Lee", "entityType": "person", "observations": ["Likes tea"]},
        ],
    )
    assert sorted(e["name"] for e in out["created"]) == ["Ann Lee", "ann lee"] and out["existing"] == []
    nodes = await vg.ok("open_nodes", names=["Ann Lee", "ann lee"])
    texts = {e["name"]: [o if isinstance(o, str) else o["text"] for o in e["observations"]] for e in nodes["entities"]}
    assert texts == {"Ann Lee": ["Likes tea"], "ann lee": ["Likes coffee"]}
    again = await vg.ok("create_entities", entities=[{"name": "ann lee", "entityType": "person", "observations": []}])
    assert again["created"] == [] and again["existing"] == ["ann lee"]
