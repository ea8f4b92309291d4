"""create_entities naming one entity in several items of one call (an agent listing what it
learned, a name twice): the entity is made once with every item's observations, in the call's
order, each text once. Before (M2 s84), every item after the first was dropped and reported
nowhere: its observations were lost although the call answered success. Items that give the
name two different types are refused (`validation_error`, `repeated_name`), nothing made: which
type is meant is the caller's to say. validate_plan refuses such a step too and foresees the
merged note for a later step."""

from __future__ import annotations

from tests.conftest import Harness, snapshot


async def test_a_name_given_twice_keeps_both_items_observations(vg: Harness) -> None:
    out = await vg.ok(
        "create_entities",
        entities=[
            {"name": "Ann Lee", "entityType": "person", "observations": ["Likes tea", "Lives in Oslo"]},
            {"name": "Bob", "entityType": "person", "observations": []},
            {"name": "[[Ann Lee]]", "entityType": "person", "observations": ["Lives in Oslo", "Plays chess"]},
        ],
    )
    assert [e["name"] for e in out["created"]] == ["Ann Lee", "Bob"] and out["existing"] == [], out
    texts = [o["text"] for o in out["created"][0]["observations"]]
    assert texts == ["Likes tea", "Lives in Oslo", "Plays chess"], texts
    nodes = await vg.ok("open_nodes", names=["Ann Lee"])
    assert [o["text"] for o in nodes["entities"][0]["observations"]] == texts


async def test_a_name_given_two_types_is_refused_and_nothing_made(vg: Harness) -> None:
    before = snapshot(vg.root)
    items = [
        {"name": "Bob", "entityType": "person", "observations": ["Plays bass"]},
        {"name": "Mercury", "entityType": "planet", "observations": ["Closest to the sun"]},
        {"name": "Mercury", "entityType": "element", "observations": ["A liquid metal"]},
    ]
    error = await vg.err("create_entities", "validation_error", entities=items)
    assert error["details"] == {"field": "entities[2].entityType", "reason": "repeated_name", "first": 1}, error
    assert snapshot(vg.root) == before
    plan = {"goal": "remember", "steps": [{"id": "e", "tool": "create_entities", "args": {"entities": items}}]}
    checked = await vg.ok("validate_plan", plan=plan)
    assert [(p["step"], p["code"]) for p in checked["problems"]] == [("e", "validation_error")], checked
    assert snapshot(vg.root) == before


async def test_a_plan_foresees_the_merged_note(vg: Harness) -> None:
    """A later step's check reads the note as the call writes it: a supersede naming the second
    item's observation is valid (before, the check read the note without it and refused the plan),
    and the run does it."""
    items = [
        {"name": "Ann Lee", "entityType": "person", "observations": ["Lives in Oslo"]},
        {"name": "Ann Lee", "entityType": "person", "observations": ["Moved to Bergen"]},
    ]
    newer = {"entityName": "Ann Lee", "observation": "Lives in Oslo", "superseded_by": "Moved to Bergen"}
    plan = {
        "goal": "remember",
        "steps": [
            {"id": "e", "tool": "create_entities", "args": {"entities": items}},
            {"id": "s", "tool": "supersede_observation", "args": newer},
        ],
    }
    checked = await vg.ok("validate_plan", plan=plan)
    assert checked["valid"], checked["problems"]
    run = await vg.ok("execute_plan", plan=plan, effects_hash=checked["effects_hash"])
    assert run["status"] == "done", run
    [ann] = (await vg.ok("open_nodes", names=["Ann Lee"]))["entities"]
    oslo, bergen = ann["observations"]
    assert oslo["superseded_by"] == bergen["block_id"] and bergen["superseded_by"] is None, ann


async def test_a_name_given_in_nfc_and_nfd_keeps_both_items_observations(vg: Harness) -> None:
    """One name spelled in NFD and in NFC ('Café' as typed on macOS and elsewhere) is one note: the
    second item's observations went nowhere (S1 s85: `created` the first item, `existing` the
    name, 'y' lost)."""
    items = [
        {"name": "Cafe\u0301", "entityType": "place", "observations": ["x"]},
        {"name": "Caf\u00e9", "entityType": "place", "observations": ["y"]},
    ]
    out = await vg.ok("create_entities", entities=items)
    assert len(out["created"]) == 1 and out["existing"] == [], out
    assert [o["text"] for o in out["created"][0]["observations"]] == ["x", "y"], out
    nodes = await vg.ok("open_nodes", names=["Caf\u00e9"])
    assert [o["text"] for o in nodes["entities"][0]["observations"]] == ["x", "y"], nodes
    two_types = [items[0], {**items[1], "entityType": "person"}]
    error = await vg.err(
        "create_entities",
        "validation_error",
        entities=[{**i, "name": "Ne\u0301e"} for i in two_types[:1]] + [{**two_types[1], "name": "N\u00e9e"}],
    )
    assert error["details"]["reason"] == "repeated_name", error
