"""A plan step naming an entity by an alias an earlier step gave it (set_properties `aliases` on
the entity's note) is checked as the call finds it, through the dispatch chain (U10 s94): before,
validate_plan and execute_plan refused the plan (note_not_found, "no memory entity at
Memory/ZP.md") although the step, run, writes to the aliased entity, as the memory tools find an
entity by its alias. The effects name the aliased note, not a note of the alias's name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

HOME = {"Home.md": "# Home\n"}


def plan(*later: dict[str, Any]) -> dict[str, Any]:
    zoe = {"name": "Zoe", "entityType": "person", "observations": ["Draws maps"]}
    return {
        "goal": "an entity known by a short name",
        "steps": [
            {"id": "c", "tool": "create_entities", "args": {"entities": [zoe]}},
            {"id": "r", "tool": "rename_note", "dependsOn": ["c"], "args": {"path": "Zoe", "new_path": "Zoe Park"}},
            {
                "id": "p",
                "tool": "set_properties",
                "dependsOn": ["r"],
                "args": {"path": "Zoe Park", "properties": {"aliases": ["ZP"]}},
            },
            *later,
        ],
    }


ADD = {
    "id": "o",
    "tool": "add_observations",
    "dependsOn": ["p"],
    "args": {"observations": [{"entityName": "ZP", "contents": ["Lives in Oslo"]}]},
}
RELATE = {
    "id": "l",
    "tool": "create_relations",
    "dependsOn": ["o"],
    "args": {"relations": [{"from": "zp", "to": "Home", "relationType": "visits"}]},
}


async def test_a_step_naming_an_alias_an_earlier_step_gave_runs_where_the_call_writes(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(HOME)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan(ADD, RELATE))
        assert checked["valid"], checked["problems"]
        effects = checked["effects"]
        assert effects["files_created"] == ["Memory/Zoe Park.md"] and effects["files_modified"] == [], effects
        before = vg.snapshot()
        run = await vg.confirmed("execute_plan", plan=plan(ADD, RELATE), effects_hash=checked["effects_hash"])
        assert run["status"] == "done", run
        assert vg.changed_since(before) == {"Memory/Zoe Park.md"}
        text = vg.read("Memory/Zoe Park.md")
        assert "- Lives in Oslo [" in text and "- visits [[Home]]" in text, text
        await vg.confirmed("undo_last_plan")
        assert vg.changed_since(before) == set()


async def test_an_alias_a_later_step_took_away_again_is_no_entity(make_vault: Callable[..., Path]) -> None:
    drop = {
        "id": "q",
        "tool": "set_properties",
        "dependsOn": ["p"],
        "args": {"path": "Zoe Park", "properties": {"aliases": None}},
    }
    add = {**ADD, "dependsOn": ["q"]}
    async with started(make_vault(HOME)) as vg:
        await vg.indexed()
        for steps in ((drop, add), ({**ADD, "args": {"observations": [{"entityName": "ZQ", "contents": ["x"]}]}},)):
            checked = await vg.ok("validate_plan", plan=plan(*steps))
            assert [(p["step"], p["code"]) for p in checked["problems"]] == [("o", "note_not_found")], checked
