"""Reading, searching and pruning the memory graph through the dispatch chain: search_memory ranks
single observations, memory_store keeps a fact under a key, deletions remove exactly what they
name, delete_entities asks a human with the list of notes and moves them to the trash."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started

PEOPLE = [
    {"name": "Caroline", "entityType": "person", "observations": ["Painted a lake sunrise last year", "Likes hiking"]},
    {"name": "Melanie", "entityType": "person", "observations": ["Runs a pottery class", "Has two kids"]},
    {"name": "Acme", "entityType": "company", "observations": ["Makes pottery wheels"]},
]


@pytest.mark.covers("search_memory", "success")
async def test_search_memory_ranks_single_observations_with_their_entity_and_block(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    await vg.ok(
        "add_observations",
        observations=[{"entityName": "Caroline", "contents": ["Went to a pride parade"], "date": "2023-06-01"}],
    )
    out = await vg.ok("search_memory", query="who painted the sunrise?", limit=5)
    top = out["items"][0]
    assert top["entity"] == "Caroline" and top["text"] == "Painted a lake sunrise last year"
    assert top["block_id"] and top["obsidian_url"].endswith(top["block_id"]) and top["path"] == "Memory/Caroline.md"
    people = await vg.ok("search_memory", query="pottery", entity_type="person")
    assert "Acme" not in {i["entity"] for i in people["items"]}  # not the company
    # its own words first, then its neighbours (in its note, and recorded next to it in the call)
    assert people["items"][0]["text"] == "Runs a pottery class"
    assert {i["text"] for i in people["items"][1:]} == {"Has two kids", "Likes hiking"}
    dated = await vg.ok("search_memory", query="parade", since="2023-05-01", until="2023-06-30")
    assert [i["text"] for i in dated["items"]] == ["Went to a pride parade"]
    assert (await vg.ok("search_memory", query="parade", until="2023-01-01"))["items"] == []


@pytest.mark.covers("search_memory", "failure")
async def test_search_memory_refuses_an_empty_query_and_a_denied_folder(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        await vg.err("search_memory", "validation_error", query="")
    vault = {
        "Memory/Alice.md": '---\nname: "Alice"\nentityType: "person"\n---\n# Alice\n\n## Observations\n- secret plan\n'
    }
    acl = {"prefix_rules": [{"path": "Memory", "read": "deny", "write": "deny"}]}
    async with started(make_vault(vault), acl=acl) as vg:
        await vg.err("search_memory", "acl_denied", query="secret plan")
        await vg.err("read_memory_graph", "acl_denied")


@pytest.mark.covers("read_memory_graph", "success")
async def test_the_graph_is_paginated_and_filtered(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    await vg.ok("create_relations", relations=[{"from": "Melanie", "to": "Acme", "relationType": "buys_from"}])
    first = await vg.ok("read_memory_graph", limit=2)
    second = await vg.ok("read_memory_graph", limit=2, cursor=first["next_cursor"])
    names = [e["name"] for e in first["entities"] + second["entities"]]
    assert sorted(names) == ["Acme", "Caroline", "Melanie"] and first["total"] == 3 and second["next_cursor"] is None
    people = await vg.ok("read_memory_graph", entity_type="person")
    assert people["total"] == 2
    assert {"from": "Melanie", "to": "Acme", "relationType": "buys_from"} in people["relations"]


@pytest.mark.covers("read_memory_graph", "failure")
async def test_a_cursor_of_another_query_is_refused(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    first = await vg.ok("read_memory_graph", limit=1)
    await vg.err("read_memory_graph", "validation_error", entity_type="person", cursor=first["next_cursor"])


@pytest.mark.covers("memory_store", "success")
async def test_memory_store_keeps_a_fact_under_its_key_and_search_finds_it(vg: Harness) -> None:
    out = await vg.ok("memory_store", key="Rent", value="Rent is due on the 3rd of each month", source="Finance.md")
    assert out["stored"] and out["key"] == "Rent" and out["path"] == "Memory/Rent.md" and out["block_id"]
    again = await vg.ok("memory_store", key="Rent", value="rent is due on the 3rd of each month.")
    assert not again["stored"] and again["block_id"] == out["block_id"]
    found = await vg.ok("search_memory", query="when is rent due")
    assert found["items"][0]["source"] == "Finance.md"


@pytest.mark.covers("memory_store", "failure")
async def test_memory_store_refuses_a_bad_key_or_value(vg: Harness) -> None:
    before = vg.snapshot()
    await vg.err("memory_store", "validation_error", key="...", value="x")
    await vg.err("memory_store", "validation_error", key="k", value="   ")
    assert vg.snapshot() == before


@pytest.mark.covers("delete_observations", "success")
async def test_observations_are_deleted_by_text_or_block_id(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    opened = await vg.ok("open_nodes", names=["Caroline"])
    block = opened["entities"][0]["observations"][1]["block_id"]
    out = await vg.ok(
        "delete_observations",
        deletions=[
            {"entityName": "Caroline", "observations": ["painted a lake sunrise last year", f"^{block}", "nope"]}
        ],
    )
    assert out["deleted"] == 2 and out["not_found"] == ["nope"]
    assert (await vg.ok("open_nodes", names=["Caroline"]))["entities"][0]["observations"] == []


@pytest.mark.covers("delete_observations", "failure")
async def test_deleting_observations_of_an_unknown_entity_changes_nothing(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    before = vg.snapshot()
    await vg.err(
        "delete_observations",
        "note_not_found",
        deletions=[
            {"entityName": "Caroline", "observations": ["Likes hiking"]},
            {"entityName": "Nobody", "observations": ["x"]},
        ],
    )
    assert vg.snapshot() == before


@pytest.mark.covers("delete_relations", "success")
async def test_relations_are_deleted_and_missing_ones_reported(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    rel = {"from": "Melanie", "to": "Acme", "relationType": "buys_from"}
    await vg.ok("create_relations", relations=[rel])
    out = await vg.ok("delete_relations", relations=[rel, {**rel, "relationType": "owns"}])
    assert out["deleted"] == 1 and out["not_found"] == [{**rel, "relationType": "owns"}]
    assert "[[Memory/Acme]]" not in vg.read("Memory/Melanie.md")


@pytest.mark.covers("delete_relations", "failure")
async def test_deleting_a_relation_of_an_unknown_entity_is_refused(vg: Harness) -> None:
    await vg.err("delete_relations", "note_not_found", relations=[{"from": "Nobody", "to": "X", "relationType": "r"}])


@pytest.mark.covers("delete_entities", "success")
async def test_deleted_entities_go_to_the_trash_after_a_confirmation_listing_them(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    await vg.ok("create_relations", relations=[{"from": "Melanie", "to": "Acme", "relationType": "buys_from"}])
    first = await vg.call("delete_entities", entityNames=["Acme", "Ghost"])
    assert first.structured is not None and first.structured["error"]["code"] == "elicit_required"
    assert first.structured["error"]["details"]["files"] == ["Memory/Acme.md"]
    out = await vg.confirmed("delete_entities", entityNames=["Acme", "Ghost"])
    assert out["deleted"] == ["Acme"] and out["missing"] == ["Ghost"] and out["trash"][0].startswith(".trash/")
    assert out["dangling_relations"] == [{"from": "Melanie", "to": "Acme", "relationType": "buys_from"}]
    assert not (vg.root / "Memory/Acme.md").exists()


@pytest.mark.covers("delete_entities", "failure")
async def test_deleting_entities_with_a_bad_name_changes_nothing(vg: Harness) -> None:
    await vg.ok("create_entities", entities=PEOPLE)
    before = vg.snapshot()
    await vg.err("delete_entities", "validation_error", entityNames=["Acme", "a\x00b"])
    assert vg.snapshot() == before


@pytest.mark.covers("supersede_observation", "success")
@pytest.mark.covers("supersede_observation", "failure")
async def test_supersede_marks_the_older_observation_and_keeps_both(vg: Harness) -> None:
    await vg.ok(
        "create_entities",
        entities=[{"name": "Ann", "entityType": "person", "observations": ["Lives in Berlin", "Moved to Munich"]}],
    )
    opened = (await vg.ok("open_nodes", names=["Ann"]))["entities"][0]["observations"]
    old, new = opened[0]["block_id"], opened[1]["block_id"]
    out = await vg.ok(
        "supersede_observation",
        entityName="Ann",
        observation=f"^{old}",
        superseded_by="Moved to Munich",
        valid_until="2024-05-01",
    )
    assert out["block_id"] == old and out["superseded_by"] == new
    note = vg.read("Memory/Ann.md")
    assert (
        "Lives in Berlin [recorded::" in note
        and f"[superseded_by:: ^{new}]" in note
        and "[valid_until:: 2024-05-01]" in note
    )
    assert "Moved to Munich" in note
    await vg.err(
        "supersede_observation",
        "note_not_found",
        entityName="Ann",
        observation="Plays chess",
        superseded_by="Moved to Munich",
    )
    await vg.err(
        "supersede_observation", "validation_error", entityName="Ann", observation=f"^{new}", superseded_by=f"^{new}"
    )
