"""A plan that makes a memory entity and then relates another entity to it runs the relation after
the entity is made, though it declares no `dependsOn`. Found by a user pass over HTTP (s75): the
runner runs two changes side by side when the files they touch are apart, and create_relations
was taken to touch only its `from` entity's note; it ran beside create_entities and failed ("'Bob'
is neither a memory entity nor a note") after validate_plan had passed the plan, leaving it half
done. Its targets are now touched too (read), so the step making one runs first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Likes tea\n\n## Relations\n"
PLAN = {
    "goal": "meet Bob",
    "steps": [
        {"id": "e", "tool": "create_entities", "args": {"entities": [{"name": "Bob", "entityType": "person"}]}},
        {"id": "n", "tool": "create_note", "args": {"path": "Notes/Bob's talk", "content": "# Talk\n"}},
        {
            "id": "r",
            "tool": "create_relations",
            "args": {
                "relations": [
                    {"from": "Ann", "to": "Bob", "relationType": "knows"},
                    {"from": "Ann", "to": "Notes/Bob's talk", "relationType": "attended"},
                ]
            },
        },
    ],
}


async def test_a_relation_to_an_entity_an_earlier_step_makes_runs_after_it(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Ann.md": ANN})) as vg:
        await vg.indexed()
        start = vg.snapshot()
        checked = await vg.ok("validate_plan", plan=PLAN)
        assert checked["valid"], checked["problems"]
        run = await vg.ok("execute_plan", plan=PLAN)
        assert run["status"] == "done", run
        ann = vg.read("Memory/Ann.md")
        assert "knows [[Memory/Bob]]" in ann and "attended [[Notes/Bob's talk]]" in ann, ann
        await vg.confirmed("undo_last_plan")
        assert vg.snapshot() == start


async def test_a_relation_to_a_note_an_earlier_step_makes_by_its_bare_name_runs_after_it(
    make_vault: Callable[..., Path],
) -> None:
    """The note a relation's target names by its bare name (`Launch talk`, made at `Talks/`) is
    the one the check finds as the call finds it: the relation runs after the step making it. It
    ran beside the create (touches apart: only `Launch talk.md` at the root was taken for the
    target) and failed ('neither a memory entity nor a note') after validate_plan passed it (s76)."""
    plan = {
        "goal": "a talk",
        "steps": [
            {"id": "n", "tool": "create_note", "args": {"path": "Talks/Launch talk", "content": "# Talk\n"}},
            {
                "id": "r",
                "tool": "create_relations",
                "args": {"relations": [{"from": "Ann", "to": "Launch talk", "relationType": "gave"}]},
            },
        ],
    }
    async with started(make_vault({"Memory/Ann.md": ANN})) as vg:
        await vg.indexed()
        assert (await vg.ok("validate_plan", plan=plan))["valid"]
        for _ in range(3):  # side by side, the relation lost the race every time
            run = await vg.ok("execute_plan", plan=plan)
            assert run["status"] == "done", run
            assert "gave [[Talks/Launch talk]]" in vg.read("Memory/Ann.md")
            await vg.confirmed("undo_last_plan")
