"""Every memory tool that takes an entity's name finds it in any letter case and Unicode spelling,
as note names are taken: 'william gibson' (or 'WILLIAM GIBSON', or an NFD spelling of 'Zoé') is
the entity 'William Gibson' when it is the only one so named; several entities that fold alike
(notes made by hand: the tools refuse a case twin) answer ambiguous_note naming them, nothing
changed. create_entities still refuses a case twin (already_exists), and memory_store adds to
the entity rather than refusing its key as one."""

from __future__ import annotations

import unicodedata

from tests.conftest import Harness


async def test_a_name_in_another_case_or_spelling_names_the_one_entity(vg: Harness) -> None:
    await vg.ok(
        "create_entities",
        entities=[
            {"name": "William Gibson", "entityType": "person", "observations": ["Wrote Neuromancer"]},
            {"name": "Zoé Roy", "entityType": "person", "observations": ["Lives in Lyon"]},
            {"name": "Sprawl", "entityType": "place"},
        ],
    )
    out = await vg.ok(
        "add_observations", observations=[{"entityName": "william gibson", "contents": ["Born 1948", "Born in Conway"]}]
    )
    assert out["results"][0]["addedObservations"] == ["Born 1948", "Born in Conway"]
    assert "- Born 1948 " in vg.read("Memory/William Gibson.md")
    assert not (vg.root / "Memory" / "william gibson.md").exists()
    nfd = unicodedata.normalize("NFD", "ZOÉ ROY")
    await vg.ok("add_observations", observations=[{"entityName": nfd, "contents": ["Cycles to work"]}])
    assert "- Cycles to work " in vg.read("Memory/Zoé Roy.md")
    opened = await vg.ok("open_nodes", names=["WILLIAM GIBSON", "[[william gibson]]", "zoé roy"])
    assert [e["name"] for e in opened["entities"]] == ["William Gibson", "Zoé Roy"] and opened["missing"] == []
    made = await vg.ok(
        "create_relations", relations=[{"from": "william gibson", "to": "sprawl", "relationType": "wrote"}]
    )
    assert made["created"] and "- wrote [[Memory/Sprawl]]" in vg.read("Memory/William Gibson.md")
    await vg.ok("delete_relations", relations=[{"from": "WILLIAM GIBSON", "to": "SPRAWL", "relationType": "wrote"}])
    assert "[[Memory/Sprawl]]" not in vg.read("Memory/William Gibson.md")
    await vg.ok(
        "supersede_observation", entityName="william gibson", observation="Born 1948", superseded_by="Born in Conway"
    )
    await vg.ok(
        "delete_observations", deletions=[{"entityName": "william GIBSON", "observations": ["Wrote Neuromancer"]}]
    )
    assert "Wrote Neuromancer" not in vg.read("Memory/William Gibson.md")
    stored = await vg.ok("memory_store", key="william gibson", value="Lives in Vancouver")
    assert stored["key"] == "William Gibson" and stored["path"] == "Memory/William Gibson.md"
    assert sorted(p.name for p in (vg.root / "Memory").iterdir()) == ["Sprawl.md", "William Gibson.md", "Zoé Roy.md"]
    gone = await vg.confirmed("delete_entities", entityNames=["sprawl"])
    assert not (vg.root / "Memory" / "Sprawl.md").exists(), gone


async def test_a_case_twin_is_still_refused_by_create_entities(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "William Gibson", "entityType": "person"}])
    error = await vg.err("create_entities", "already_exists", entities=[{"name": "william gibson", "entityType": "x"}])
    assert error["details"]["path"] == "Memory/William Gibson.md"


async def test_names_that_fold_alike_are_ambiguous_and_nothing_changes(vg: Harness) -> None:
    (vg.root / "Memory").mkdir(exist_ok=True)
    for file, name in [("Ann Lee.md", "Ann Lee"), ("ANN LEE 2.md", "ANN LEE")]:
        (vg.root / "Memory" / file).write_text(f"---\nname: {name}\nentityType: person\n---\n\n## Observations\n")
    before = vg.snapshot()
    for tool, args in [
        ("add_observations", {"observations": [{"entityName": "ann lee", "contents": ["x"]}]}),
        ("open_nodes", {"names": ["ann lee"]}),
        ("delete_entities", {"entityNames": ["Ann lee"]}),
        ("memory_store", {"key": "ann LEE", "value": "y"}),
    ]:
        error = await vg.err(tool, "ambiguous_note", **args)
        assert error["details"]["candidates"] == ["ANN LEE", "Ann Lee"], (tool, error)
    assert vg.snapshot() == before
    exact = await vg.ok("add_observations", observations=[{"entityName": "ANN LEE", "contents": ["Exact"]}])
    assert exact["results"][0]["added"] == 1 and "- Exact " in vg.read("Memory/ANN LEE 2.md")
