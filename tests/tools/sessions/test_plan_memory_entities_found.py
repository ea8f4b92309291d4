"""validate_plan refuses a memory step whose entity exists nowhere, before any step runs, with the
code the call itself answers — found by R5 (s75): [create_note, create_relations Nobody->Welcome]
validated `valid: true` and the run stopped half done (the note made, the relation failed). The
check finds the entity as the tool finds it (the caller's own note: one the path ACL hides is no
entity's; the ACL is asked first), so a caller gets the same answer for a hidden entity and an
absent one; an entity an earlier step of the plan makes passes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.types import Principal
from tests.conftest import Harness, started

ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Likes tea ^m-1\n\n## Relations\n"
BOSS = '---\nname: "Chief"\nentityType: "person"\n---\n# Chief\n\n## Observations\n- Under review ^m-2\n'
NOTE = {"id": "n", "tool": "create_note", "args": {"path": "N1.md", "content": "# N1\n"}}


def _needing(name: str) -> list[tuple[str, dict[str, Any]]]:
    """Calls that need the entity `name` (as their source) to be there."""
    return [
        ("add_observations", {"observations": [{"entityName": name, "contents": ["x"]}]}),
        ("delete_observations", {"deletions": [{"entityName": name, "observations": ["x"]}]}),
        ("create_relations", {"relations": [{"from": name, "to": "Welcome", "relationType": "knows"}]}),
        ("delete_relations", {"relations": [{"from": name, "to": "Welcome", "relationType": "knows"}]}),
        ("delete_entities", {"entityNames": [name], "missing_ok": False}),
    ]


def _plan(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"goal": "g", "steps": [NOTE, {"id": "m", "tool": tool, "args": args}]}


async def test_a_step_whose_entity_exists_nowhere_is_refused_before_anything_runs(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"Welcome.md": "# Welcome\n", "Memory/Ann.md": ANN})) as vg:
        await vg.indexed()
        start = vg.snapshot()
        for tool, args in _needing("Nobody"):
            direct = await vg.call(tool, **args)  # what the call itself answers
            assert direct.is_error and direct.structured["error"]["code"] == "note_not_found", direct.structured
            checked = await vg.ok("validate_plan", plan=_plan(tool, args))
            assert not checked["valid"], (tool, checked)
            assert [(p["step"], p["code"]) for p in checked["problems"]] == [("m", "note_not_found")], checked
            assert "Memory/Nobody.md" in checked["problems"][0]["message"], checked
            refused = await vg.call("execute_plan", plan=_plan(tool, args))
            assert refused.is_error, refused.structured
            assert vg.snapshot() == start, tool  # N1.md not made: nothing ran
        # a relation's target that is neither an entity nor a note: the call's validation_error
        args = {"relations": [{"from": "Ann", "to": "Nobody", "relationType": "knows"}]}
        direct = await vg.call("create_relations", **args)
        assert direct.structured["error"]["code"] == "validation_error", direct.structured
        checked = await vg.ok("validate_plan", plan=_plan("create_relations", args))
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("m", "validation_error")], checked
        assert "neither a memory entity nor a note" in checked["problems"][0]["message"], checked
        # R5's second plan: the relation is listed before the step making its entities
        late = {"relations": [{"from": "Zed", "to": "Ann", "relationType": "knows"}]}
        make = {"entities": [{"name": "Zed", "entityType": "person"}]}
        plan = {
            "goal": "g",
            "steps": [
                NOTE,
                {"id": "r", "tool": "create_relations", "args": late},
                {"id": "e", "tool": "create_entities", "args": make},
            ],
        }
        checked = await vg.ok("validate_plan", plan=plan)
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("r", "note_not_found")], checked
        assert vg.snapshot() == start


async def test_entities_and_notes_earlier_steps_make_pass(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Welcome.md": "# Welcome\n", "Memory/Ann.md": ANN})) as vg:
        await vg.indexed()
        steps = [
            {"id": "e", "tool": "create_entities", "args": {"entities": [{"name": "Zed", "entityType": "person"}]}},
            {"id": "t", "tool": "create_note", "args": {"path": "Talks/Zed's talk.md", "content": "# Talk\n"}},
            {
                "id": "o",
                "tool": "add_observations",
                "args": {"observations": [{"entityName": "Zed", "contents": ["x"]}]},
            },
            {
                "id": "r",
                "tool": "create_relations",
                "args": {
                    "relations": [
                        {"from": "Zed", "to": "Ann", "relationType": "knows"},
                        {"from": "Ann", "to": "Zed", "relationType": "knows"},
                        {"from": "Ann", "to": "Zed's talk", "relationType": "attended"},
                    ]
                },
            },
            {
                "id": "x",
                "tool": "delete_observations",
                "args": {"deletions": [{"entityName": "Zed", "observations": ["x"]}]},
            },
            {
                "id": "d",
                "tool": "delete_relations",
                "args": {"relations": [{"from": "Zed", "to": "Ann", "relationType": "knows"}]},
            },
            {"id": "g", "tool": "delete_entities", "args": {"entityNames": ["Zed"], "missing_ok": False}},
        ]
        plan = {
            "goal": "g",
            "steps": [{**s, "dependsOn": [steps[i - 1]["id"]]} if i else s for i, s in enumerate(steps)],
        }
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        run = await vg.confirmed("execute_plan", plan=plan)  # the entity goes to the trash: confirmed
        assert run["status"] == "done", run
        assert not (vg.root / "Memory" / "Zed.md").exists()
        assert "attended [[Talks/Zed's talk]]" in vg.read("Memory/Ann.md")


def _seen(out: dict[str, Any], name: str) -> str:
    """The answer with the entity's name taken out: what tells one entity from another."""
    return repr({k: out.get(k) for k in ("valid", "effects", "problems", "error")}).replace(name, "NAME")


async def test_a_hidden_entity_and_an_absent_one_are_refused_alike(make_vault: Callable[..., Path]) -> None:
    # a note the ACL hides (Memory/Boss.md, named Chief), and a caller denied the whole memory folder
    hidden = {"prefix_rules": [{"path": "Memory/Boss.md", "read": "deny", "write": "deny"}]}
    root = make_vault({"Welcome.md": "# Welcome\n", "Memory/Boss.md": BOSS, "Memory/Ann.md": ANN})
    narrow = Principal("outsider", frozenset({"read:vault/Projects/**", "write:vault/Projects/**"}))
    async with started(root, acl=hidden) as vg:
        await vg.indexed()
        for (tool, chief), (_, nobody) in zip(_needing("Chief"), _needing("Nobody"), strict=True):
            answers = [await vg.ok("validate_plan", plan=_plan(tool, a)) for a in (chief, nobody)]
            assert _seen(answers[0], "Chief") == _seen(answers[1], "Nobody"), tool
            assert not answers[0]["valid"] and "Boss" not in json.dumps(answers[0]), answers[0]
        for (tool, ann), (_, nobody) in zip(_needing("Ann"), _needing("Nobody"), strict=True):
            answers = [await _as(vg, narrow, _plan(tool, a)) for a in (ann, nobody)]
            assert _seen(answers[0], "Ann") == _seen(answers[1], "Nobody"), tool
            codes = {p["code"] for p in answers[0]["problems"] if p["step"] == "m"}  # as the call answers:
            assert codes == ({"forbidden"} if tool == "delete_entities" else {"acl_denied"}), answers[0]  # no scope
        to = {"relations": [{"from": "Ann", "to": "Chief", "relationType": "knows"}]}
        to_nobody = {"relations": [{"from": "Ann", "to": "Nobody", "relationType": "knows"}]}
        answers = [await vg.ok("validate_plan", plan=_plan("create_relations", a)) for a in (to, to_nobody)]
        assert _seen(answers[0], "Chief") == _seen(answers[1], "Nobody")
        assert "Boss" not in json.dumps(answers[0]) and not answers[0]["valid"], answers[0]


async def _as(vg: Harness, principal: Principal, plan: dict[str, Any]) -> dict[str, Any]:
    result = await vg.app.dispatcher.call("validate_plan", {"plan": plan}, principal=principal)
    assert result.structured is not None
    return result.structured


async def test_the_other_memory_steps_needing_an_entity_are_refused_too(make_vault: Callable[..., Path]) -> None:
    """supersede_observation, merge_observations and process_capture into an entity need the
    entity there, as the calls do: a plan naming no entity is refused before it runs."""
    async with started(make_vault({"Welcome.md": "# Welcome\n", "Memory/Ann.md": ANN})) as vg:
        await vg.indexed()
        captured = await vg.ok("capture", text="met Nobody at the fair")
        start = vg.snapshot()
        for tool, args in (
            ("supersede_observation", {"entityName": "Nobody", "observation": "x", "superseded_by": "y"}),
            ("merge_observations", {"entityName": "Nobody", "mergedName": "Ann"}),
            ("process_capture", {"capture_id": captured["id"], "action": "entity", "target": "Nobody"}),
        ):
            direct = await vg.call(tool, **args)
            assert direct.structured["error"]["code"] == "note_not_found", (tool, direct.structured)
            checked = await vg.ok("validate_plan", plan=_plan(tool, args))
            assert [(p["step"], p["code"]) for p in checked["problems"]] == [("m", "note_not_found")], checked
            assert (await vg.call("execute_plan", plan=_plan(tool, args))).is_error
            assert vg.snapshot() == start, tool
        filed = {"capture_id": captured["id"], "action": "entity", "target": "Ann"}  # an entity there: valid
        assert (await vg.ok("validate_plan", plan=_plan("process_capture", filed)))["valid"]


async def test_an_entity_note_an_earlier_step_moved_is_found_by_its_name(make_vault: Callable[..., Path]) -> None:
    """R6's review of 8855e810: [move_note Memory/Ann.md -> Memory/Anna.md, add_observations Ann]
    validated and ran before it; then validate_plan answered note_not_found (the check looked for
    the entity at the path it had before the plan's moves), though the call finds the moved note by
    its `name`. An entity note an earlier step moved is left to the run, as the call finds it: as
    the entity a step writes to, and as a relation's target."""
    files = {"Welcome.md": "# Welcome\n", "Memory/Ann.md": ANN, "Memory/Chief.md": BOSS}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        move = {"id": "mv", "tool": "move_note", "args": {"path": "Memory/Ann.md", "new_path": "Memory/Anna.md"}}

        def after_the_move(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            return {"goal": "g", "steps": [move, {"id": "m", "tool": tool, "args": args, "dependsOn": ["mv"]}]}

        to_ann = {"relations": [{"from": "Chief", "to": "Ann", "relationType": "reports_to"}]}
        for tool, args in [*_needing("Ann")[:3], ("create_relations", to_ann)]:
            checked = await vg.ok("validate_plan", plan=after_the_move(tool, args))
            assert checked["valid"], (tool, checked["problems"])
        run = await vg.ok("execute_plan", plan=after_the_move(*_needing("Ann")[0]))
        assert run["status"] == "done", run
        assert "- x" in vg.read("Memory/Anna.md") and not (vg.root / "Memory/Ann.md").exists()
