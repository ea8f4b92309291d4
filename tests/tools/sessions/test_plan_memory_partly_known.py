"""A memory step whose items are partly known at validation: the notes its known items change
are in the plan's effects and its confirmation, beside the step listed as known at run time.

Found by a user pass: [create_entities (e), create_relations with one relation from 'Steph
Ango' (named as written) and one from '$steps.e.created[0].name'] listed the create_relations
step as `unresolved` and nothing in `files_modified`, though the run changed
`Memory/Steph Ango.md`: one item waiting for a step's result left the whole `relations` list
out, so the confirmation named no note of it. The same held for every memory tool with several
items per call (add_observations, delete_observations, delete_relations, delete_entities), and
for bulk_create_notes. Each plan here also deletes `Scratch.md` for good, so that execute_plan
asks a human; the confirmation's files are compared with what the confirmed run changed on disk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, snapshot, started
from tests.tools.test_previews_match_changes import _changed

STEPH = (
    "---\nname: Steph Ango\nentityType: person\n---\n# Steph Ango\n\n## Observations\n- Likes tea\n\n"
    "## Relations\n- knows [[Memory/Kepano]]\n"
)
KEPANO = "---\nname: Kepano\nentityType: person\n---\n# Kepano\n\n## Observations\n- Writes\n\n## Relations\n"
VAULT = {"Memory/Steph Ango.md": STEPH, "Memory/Kepano.md": KEPANO, "Scratch.md": "# Scratch\n"}
MADE = "$steps.e.created[0].name"  # 'Obsidian', known only once step e ran
MAKE = {
    "id": "e",
    "tool": "create_entities",
    "args": {"entities": [{"name": "Obsidian", "entityType": "app", "observations": ["Free"]}]},
}
BIN = {"id": "bin", "tool": "delete_note", "args": {"path": "Scratch.md", "permanent": True}}  # asks a human
STEPS: dict[str, dict[str, Any]] = {
    "create_relations": {
        "relations": [
            {"from": "Steph Ango", "to": "Obsidian", "relationType": "made"},
            {"from": MADE, "to": "Steph Ango", "relationType": "made by"},
        ]
    },
    "add_observations": {
        "observations": [
            {"entityName": "Steph Ango", "contents": ["CEO of Obsidian"]},
            {"entityName": MADE, "contents": ["Local files"]},
        ]
    },
    "delete_observations": {
        "deletions": [
            {"entityName": "Steph Ango", "observations": ["Likes tea"]},
            {"entityName": MADE, "observations": ["Free"]},
        ]
    },
    "delete_relations": {
        "relations": [
            {"from": "Steph Ango", "to": "Kepano", "relationType": "knows"},
            {"from": MADE, "to": "Steph Ango", "relationType": "none such"},
        ]
    },
    "delete_entities": {"entityNames": ["Kepano", MADE]},
    "relation_to_a_made_entity": {  # the item's source as written, its target from the run
        "relations": [{"from": "Steph Ango", "to": MADE, "relationType": "made"}]
    },
}
TOOL = {"relation_to_a_made_entity": "create_relations"}
# what each plan's known items change (besides e's entity note and the bin), and what only the
# run tells (a deleted entity's copy in the trash is named by the run's result)
KNOWN = {
    "create_relations": {"Memory/Steph Ango.md"},
    "add_observations": {"Memory/Steph Ango.md"},
    "delete_observations": {"Memory/Steph Ango.md"},
    "delete_relations": {"Memory/Steph Ango.md"},
    "delete_entities": {"Memory/Kepano.md", ".trash/Memory/Kepano.md"},
    "relation_to_a_made_entity": {"Memory/Steph Ango.md"},
}
RUN_TIME = {"delete_entities": {".trash/Memory/Obsidian.md"}}


def _plan(case: str) -> dict[str, Any]:
    step = {"id": "m", "tool": TOOL.get(case, case), "args": STEPS[case], "dependsOn": ["e"]}
    return {"goal": f"{case}, partly named by step e", "steps": [MAKE, step, BIN]}


async def _confirmation(vg: Harness, plan: dict[str, Any]) -> tuple[list[str], str]:
    first = await vg.call("execute_plan", plan=plan)
    assert first.is_error and first.structured is not None, "execute_plan did not ask"
    error = first.structured["error"]
    assert error["code"] == "elicit_required", error
    return list(error["details"]["files"]), str(error["details"]["preview"])


@pytest.mark.parametrize("case", sorted(STEPS))
async def test_a_memory_steps_known_items_are_in_its_confirmation(make_vault: Callable[..., Path], case: str) -> None:
    plan = _plan(case)
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked
        effects = checked["effects"]
        assert effects["unresolved"] == ["m"]  # its other items: at run time
        listed = {*effects["files_created"], *effects["files_modified"], *effects["files_deleted"]}
        assert KNOWN[case] <= listed, (case, effects)
        files, preview = await _confirmation(vg, plan)
        assert KNOWN[case] <= set(files), files
        assert "some steps change files known only at run time" in preview  # the rest may change more
        token = await vg.token_for("execute_plan", plan=plan)
        before = snapshot(vg.root)
        run = await vg.ok("execute_plan", plan=plan, elicit_token=token)
        assert run["status"] == "done" and all(s["status"] == "ok" for s in run["steps"]), run
        changed = _changed(before, snapshot(vg.root))
    assert KNOWN[case] <= changed, sorted(changed)
    # never less than the run changes, but for what only the run's results name
    assert changed - set(files) == RUN_TIME.get(case, set()), (sorted(changed - set(files)), files)
    assert {"Memory/Obsidian.md", "Scratch.md"} <= set(files)


async def test_a_literal_merge_target_is_named_while_the_merged_entity_waits(
    make_vault: Callable[..., Path],
) -> None:
    """merge_observations names one entity per call: its kept entity as written is listed while
    the merged one is a step's result (it already was; kept so it stays so)."""
    step = {
        "id": "m",
        "tool": "merge_observations",
        "args": {"entityName": "Steph Ango", "mergedName": MADE},
        "dependsOn": ["e"],
    }
    plan = {"goal": "merge the made entity's lines", "steps": [MAKE, step, BIN]}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        assert "Memory/Steph Ango.md" in effects["files_modified"], effects
        files, _ = await _confirmation(vg, plan)
        token = await vg.token_for("execute_plan", plan=plan)
        before = snapshot(vg.root)
        await vg.ok("execute_plan", plan=plan, elicit_token=token)
        changed = _changed(before, snapshot(vg.root))
    assert changed <= set(files), sorted(changed - set(files))


async def test_a_bulk_creates_notes_named_as_written_are_listed(make_vault: Callable[..., Path]) -> None:
    """The same for a note tool with several items per call: bulk_create_notes' note whose path
    is written out (its content waits for step e) is listed; the one whose path waits is not."""
    notes = [
        {"path": "Drafts/Known", "content": "made ${steps.e.created[0].name}\n"},
        {"path": "Drafts/${steps.e.created[0].name}", "content": "x\n"},
    ]
    step = {"id": "m", "tool": "bulk_create_notes", "args": {"notes": notes}, "dependsOn": ["e"]}
    plan = {"goal": "draft a note per made entity", "steps": [MAKE, step, BIN]}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        assert "Drafts/Known.md" in effects["files_created"] and effects["unresolved"] == ["m"], effects
        files, _ = await _confirmation(vg, plan)
        token = await vg.token_for("execute_plan", plan=plan)
        before = snapshot(vg.root)
        await vg.ok("execute_plan", plan=plan, elicit_token=token)
        changed = _changed(before, snapshot(vg.root))
    assert changed - set(files) == {"Drafts/Obsidian.md"}, (sorted(changed), files)
