"""An entity named as Obsidian links its note (`[[Ann Lee]]`, `[[Memory/Ann Lee]]`, with an alias
or a heading) is that entity for every memory tool: none makes an entity named `[[Ann Lee]]`,
none answers that it does not exist. `delete_relations` takes what `create_relations` took, and
a relation to one of two entities whose notes differ only in case is read back with its name."""

from __future__ import annotations

from tests.conftest import Harness

LINKS = ["[[Ann Lee]]", "[[Memory/Ann Lee]]", "[[Ann Lee|Ann]]", "[[Memory/Ann Lee.md#Observations]]"]


async def test_a_wikilink_names_the_entity_of_its_note(vg: Harness) -> None:
    people = [{"name": n, "entityType": "person", "observations": []} for n in ("Ann Lee", "Bob", "AC/DC")]
    await vg.ok("create_entities", entities=people)
    made = await vg.ok(
        "create_entities", entities=[{"name": "[[Ann Lee]]", "entityType": "person", "observations": []}]
    )
    assert made["existing"] == ["Ann Lee"] and made["created"] == []
    for i, link in enumerate(LINKS):
        added = await vg.ok("add_observations", observations=[{"entityName": link, "contents": [f"Fact {i}"]}])
        assert added["results"][0]["entityName"] == "Ann Lee"
        stored = await vg.ok("memory_store", key=link, value=f"Stored {i}", source="Welcome.md")
        assert stored["path"] == "Memory/Ann Lee.md"
        opened = await vg.ok("open_nodes", names=[link])
        assert [e["name"] for e in opened["entities"]] == ["Ann Lee"] and opened["missing"] == []
        relation = {"from": "Bob", "to": link, "relationType": f"knows{i}"}
        assert (await vg.ok("create_relations", relations=[relation]))["created"][0]["to"] == "Ann Lee"
        assert (await vg.ok("delete_relations", relations=[relation]))["deleted"] == 1
    await vg.ok("supersede_observation", entityName="[[Ann Lee]]", observation="Fact 0", superseded_by="Fact 1")
    gone = await vg.ok("delete_observations", deletions=[{"entityName": "[[Ann Lee]]", "observations": ["Fact 2"]}])
    assert gone["deleted"] == 1
    band = await vg.ok("add_observations", observations=[{"entityName": "[[Memory/AC~2FDC]]", "contents": ["Loud"]}])
    assert band["results"][0]["entityName"] == "AC/DC"  # the note's own name, not its file name
    graph = await vg.ok("read_memory_graph")
    assert sorted(e["name"] for e in graph["entities"]) == ["AC/DC", "Ann Lee", "Bob"]
    assert graph["relations"] == []


async def test_a_relation_names_the_entity_whose_path_it_spells(vg: Harness) -> None:
    for name in ("Ann Lee", "Bob"):
        await vg.ok("create_entities", entities=[{"name": name, "entityType": "person", "observations": []}])
    # no tool makes a case twin (6fd6010); a vault may hold one made by hand on a case-sensitive disk
    twin = "---\nname: ann lee\nentityType: person\n---\n# ann lee\n\n## Observations\n\n## Relations\n"
    (vg.root / "Memory" / "ann lee.md").write_text(twin, encoding="utf-8")
    relations = [
        {"from": "Bob", "to": "Ann Lee", "relationType": "knows"},
        {"from": "Bob", "to": "ann lee", "relationType": "met"},
    ]
    await vg.ok("create_relations", relations=relations)
    graph = await vg.ok("read_memory_graph")
    assert sorted(graph["relations"], key=str) == sorted(relations, key=str)
    opened = await vg.ok("open_nodes", names=["Bob"])
    assert sorted(opened["relations"], key=str) == sorted(relations, key=str)


async def test_a_link_that_names_no_note_makes_no_entity(vg: Harness) -> None:
    """`[[]]`, `[[|x]]`, `[[#h]]`: whole links with nothing to name are refused, never an entity
    literally named so (acceptance pass s63 T1 #4)."""
    for link in ("[[]]", "[[|x]]", "[[#h]]", "![[]]"):
        error = await vg.err("memory_store", "validation_error", key=link, value="v", source="Welcome.md")
        assert error["details"]["reason"] == "empty_link"
        entity = {"name": link, "entityType": "x", "observations": []}
        await vg.err("create_entities", "validation_error", entities=[entity])
    assert (await vg.ok("read_memory_graph"))["entities"] == []
    assert not (vg.root / "Memory").exists() or list((vg.root / "Memory").iterdir()) == []


async def test_an_embed_or_two_links_is_refused_as_not_one_link(vg: Harness) -> None:
    """`![[Ann]]` and `[[Ann]] and [[Bob]]` are neither a name nor one link: refused, and not
    told they name no note (review R2 s63 #7)."""
    for text in ("![[Ann]]", "[[Ann]] and [[Bob]]"):
        error = await vg.err("memory_store", "validation_error", key=text, value="v", source="Welcome.md")
        assert error["details"]["reason"] == "not_a_link" and "not one [[wikilink]]" in error["message"]
