"""A memory call that changes several entity notes is a journaled run of kind `bulk`
(`writing.all_or_nothing`), which `undo_last_plan` reverses like a plan, as docs/plans.md says
(U8 s75 #11: the doc listed only the note tools); a call that changes one entity note (one
relation is written in its `from` entity's note alone) is no run."""

from __future__ import annotations

from tests.conftest import Harness

PEOPLE = [
    {"name": "Ann", "entityType": "person", "observations": ["Lives in Lyon"]},
    {"name": "Bob", "entityType": "person", "observations": ["Likes tea"]},
]


async def test_create_entities_of_two_is_undone_whole(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    assert (vg.root / "Memory/Ann.md").exists() and (vg.root / "Memory/Bob.md").exists()
    undone = await vg.confirmed("undo_last_plan")
    assert {"Memory/Ann.md", "Memory/Bob.md"} <= set(undone["restored"]), undone
    assert not (vg.root / "Memory/Ann.md").exists() and not (vg.root / "Memory/Bob.md").exists()


async def test_add_observations_on_two_is_undone_whole(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    adds = [{"entityName": "Ann", "contents": ["Speaks French"]}, {"entityName": "Bob", "contents": ["Owns a bike"]}]
    await vg.ok("add_observations", observations=adds)
    undone = await vg.confirmed("undo_last_plan")
    assert sorted(undone["restored"]) == ["Memory/Ann.md", "Memory/Bob.md"], undone
    ann, bob = vg.read("Memory/Ann.md"), vg.read("Memory/Bob.md")
    assert "Lives in Lyon" in ann and "Likes tea" in bob
    assert "Speaks French" not in ann and "Owns a bike" not in bob


async def test_create_relations_on_two_is_undone_whole(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    both_ways = [
        {"from": "Ann", "to": "Bob", "relationType": "knows"},
        {"from": "Bob", "to": "Ann", "relationType": "knows"},
    ]
    await vg.ok("create_relations", relations=both_ways)  # a relation is written in its `from` entity's note
    undone = await vg.confirmed("undo_last_plan")
    assert sorted(undone["restored"]) == ["Memory/Ann.md", "Memory/Bob.md"], undone
    assert "knows" not in vg.read("Memory/Ann.md") + vg.read("Memory/Bob.md")


async def test_a_call_on_one_entity_is_no_run(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["Speaks French"]}])
    # the latest run is create_entities', whose Ann.md the single add changed since
    refused = await vg.err("undo_last_plan", "conflict")
    assert [c["path"] for c in refused["details"]["conflicts"]] == ["Memory/Ann.md"], refused
