"""create_entities and names that differ only in letter case: a new entity beside another of the
same name in another case (in the vault or earlier in the same call) is refused with
already_exists naming that note, nothing made (its file would be a case twin, one file on macOS
and Windows: T1 s62 #5b); a name given twice exactly is made once and reported as created."""

from __future__ import annotations

from tests.conftest import Harness


async def test_a_name_that_differs_only_in_case_is_refused(vg: Harness) -> None:
    error = await vg.err(
        "create_entities",
        "already_exists",
        entities=[
            {"name": "Ann Lee", "entityType": "person", "observations": ["Likes tea"]},
            {"name": "ann lee", "entityType": "person", "observations": ["Likes coffee"]},
        ],
    )
    assert error["details"] == {"path": "Memory/Ann Lee.md", "new_path": "Memory/ann lee.md"}, error
    assert not (vg.root / "Memory" / "Ann Lee.md").exists()  # all or nothing
    out = await vg.ok(
        "create_entities",
        entities=[
            {"name": "Ann Lee", "entityType": "person", "observations": ["Likes tea"]},
            {"name": "Ann Lee", "entityType": "person", "observations": ["Likes tea"]},
        ],
    )
    assert [e["name"] for e in out["created"]] == ["Ann Lee"] and out["existing"] == []
    error = await vg.err("create_entities", "already_exists", entities=[{"name": "ann lee", "entityType": "person"}])
    assert error["details"]["path"] == "Memory/Ann Lee.md"
    again = await vg.ok("create_entities", entities=[{"name": "Ann Lee", "entityType": "person", "observations": []}])
    assert again["created"] == [] and again["existing"] == ["Ann Lee"]


async def test_a_name_in_another_case_is_suggested_by_every_tool_that_misses_it(vg: Harness) -> None:
    """'STEPH ANGO' is refused by create_entities as a twin of 'Steph Ango', so the tools that
    look the entity up name it when they miss it: 'STEPH ANGO' suggested nothing (as written, too
    few of its letters match), where 'steph ango' did. Since the tools take an entity's name in any
    case (tests/tools/memory/test_entity_names_any_case.py) 'STEPH ANGO' is that entity; a misspelt
    name in another case ('STEF ANGO') is what they miss and suggest it for."""
    await vg.ok("create_entities", entities=[{"name": "Steph Ango", "entityType": "person", "observations": ["CEO"]}])
    await vg.ok("create_entities", entities=[{"name": f"Topic {i}", "entityType": "topic"} for i in range(8)])
    before = vg.snapshot()
    for tool, args in [
        ("add_observations", {"observations": [{"entityName": "STEF ANGO", "contents": ["x"]}]}),
        ("delete_observations", {"deletions": [{"entityName": "STEF ANGO", "observations": ["CEO"]}]}),
        ("supersede_observation", {"entityName": "STEF ANGO", "observation": "CEO", "superseded_by": "Founder"}),
    ]:
        error = await vg.err(tool, "note_not_found", **args)
        assert error["details"]["suggestions"][0] == "Steph Ango", (tool, error)
    assert vg.snapshot() == before
