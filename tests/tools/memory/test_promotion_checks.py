"""promote_experience through the dispatch chain (T1 items 20 and 7): a promotion that cannot
succeed is refused before a human is asked, and the human is shown what is written where."""

from __future__ import annotations

from tests.conftest import Harness

ENTITY = {"name": "Ops", "entityType": "team", "observations": []}


async def _asked(vg: Harness) -> int:
    row = await vg.app.services.state.fetchone("SELECT count(*) FROM confirmation_requests")
    return int(row[0])


async def test_an_experience_longer_than_an_observation_is_refused_before_anyone_is_asked(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[ENTITY])
    made = await vg.ok("record_experience", kind="note", text="step " * 2500)  # 12,500 characters
    eid = made["experience"]["id"]
    before = vg.snapshot()
    error = await vg.err("promote_experience", "validation_error", experience_id=eid, entity="Ops")
    assert error["details"]["reason"] == "too_long" and "text" in error["hint"]
    assert await _asked(vg) == 0 and vg.snapshot() == before
    # with a `text` that fits, the same experience can be promoted
    promoted = await vg.confirmed("promote_experience", experience_id=eid, entity="Ops", text="steps, shortened")
    assert "steps, shortened" in vg.read(promoted["path"])


async def test_the_confirmation_shows_the_text_and_the_note_it_is_added_to(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[ENTITY])
    made = await vg.ok("record_experience", kind="worked", text="Restarting the indexer fixed stale results")
    eid = made["experience"]["id"]
    asked = await vg.err("promote_experience", "elicit_required", experience_id=eid, entity="Ops")
    assert asked["details"]["files"] == ["Memory/Ops.md"]
    assert "Restarting the indexer fixed stale results" in asked["details"]["preview"]
    long = await vg.ok("record_experience", kind="note", text="word " * 1000)
    shown = await vg.err("promote_experience", "elicit_required", experience_id=long["experience"]["id"], entity="Ops")
    assert len(shown["details"]["preview"]) < 1000 and "4999 characters" in shown["details"]["preview"]


async def test_a_plan_that_promotes_lists_the_entity_note_it_changes(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[ENTITY])
    made = await vg.ok("record_experience", kind="worked", text="Restarting the indexer fixed stale results")
    step = {
        "id": "p",
        "tool": "promote_experience",
        "args": {"experience_id": made["experience"]["id"], "entity": "Ops"},
    }
    plan = {"goal": "promote", "steps": [step]}
    checked = await vg.ok("validate_plan", plan=plan)
    assert "Memory/Ops.md" in str(checked["effects"])
    asked = await vg.err("execute_plan", "elicit_required", plan=plan)
    assert asked["details"]["files"] == ["Memory/Ops.md"]
    run = await vg.confirmed("execute_plan", plan=plan)
    assert run["status"] == "done", run
    assert "Restarting the indexer" in vg.read("Memory/Ops.md")


async def test_an_undone_promotion_can_be_promoted_again(vg: Harness) -> None:
    """Undoing the plan that promoted an experience takes its observation away: the experience is
    no longer "promoted already" (it was, for good, with a link to a block that was gone)."""
    await vg.ok("create_entities", entities=[ENTITY])
    eid = (await vg.ok("record_experience", kind="worked", text="Warm caches halve the first search"))["experience"][
        "id"
    ]
    plan = {
        "goal": "g",
        "steps": [{"id": "p", "tool": "promote_experience", "args": {"experience_id": eid, "entity": "Ops"}}],
    }
    run = await vg.confirmed("execute_plan", plan=plan)
    assert run["status"] == "done", run
    await vg.err("promote_experience", "conflict", experience_id=eid, entity="Ops")  # promoted: the line is there
    await vg.confirmed("undo_last_plan")
    assert "Warm caches" not in vg.read("Memory/Ops.md")
    listed = (await vg.ok("list_experiences"))["items"]
    assert [(e["id"], e["promoted_to"], e["promoted_link"]) for e in listed] == [(eid, None, None)]
    assert (await vg.ok("list_experiences", promoted=True))["items"] == []
    again = await vg.confirmed("promote_experience", experience_id=eid, entity="Ops")
    assert "Warm caches" in vg.read(again["path"])
