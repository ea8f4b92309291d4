"""A plan whose supersede_observation names an observation an earlier step deleted (or one the
entity never held) is refused by validate_plan, before any step runs: the check composes the
entity note's text as the earlier steps leave it (`service.tools.memory.planned`) and asks the
tool's own change of it (`superseded_in`), so a supersede that would make a cycle is refused too.
Before, the plan validated, execute_plan ran the deletion and then stopped at the supersede
(note_not_found, validation_error), half done."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started
from tests.tools.sessions.test_plan_memory_deletes_foreseen import MEMORY, MERGE, _forget, _supersede
from tests.tools.sessions.test_plan_memory_texts_foreseen import _observe
from tests.tools.sessions.test_plan_refusals_told import assert_told, first_refused

OSLO, ROME = "Lives in Oslo", "Moved to Rome"
REFUSED: dict[str, list[dict[str, Any]]] = {
    "the older one deleted first": [_forget("d", "Ann", OSLO), _supersede("s", "Ann", OSLO, "^m-1")],
    "the newer one deleted first": [_forget("d", "Ann", "^m-1"), _supersede("s", "Ann", "Lives in Oslo", "Likes tea")],
    "one the entity never held": [_supersede("s", "Ann", "Lives in Rome", "Likes tea")],
    "one only another entity holds": [_observe("o", "Bob", ROME), _supersede("s", "Ann", OSLO, ROME)],
    "a cycle: the newer one already superseded by the older": [
        _supersede("s1", "Ann", "Likes tea", OSLO), _supersede("s", "Ann", OSLO, "Likes tea"),
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", list(REFUSED))
async def test_a_supersede_of_an_observation_not_there_is_refused_before_any_step_runs(
    make_vault: Callable[..., Path], name: str
) -> None:
    plan = {"goal": name, "steps": REFUSED[name]}
    async with started(make_vault(MEMORY)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"], checked
        [problem] = [p for p in checked["problems"] if p.get("step") == "s"]
        code, told = ("validation_error", "supersed") if "cycle" in name else ("note_not_found", "has no observation")
        assert problem["code"] == code and told in problem["message"], problem
        await vg.err("execute_plan", "validation_error", plan=plan)
        assert vg.snapshot() == start  # nothing ran
        ran = await first_refused(vg, REFUSED[name])  # the steps called one by one: the run's own error (E4 s84)
        assert ran is not None, name
        assert_told(problem, *ran)


MERGES = {
    "the merged entity deleted first": [
        {"id": "x", "tool": "delete_entities", "args": {"entityNames": ["Bob"]}},
        MERGE,
    ],
    "a merged entity there is none of": [
        {"id": "g", "tool": "merge_observations", "args": {"entityName": "Ann", "mergedName": "Nobody"}}
    ],
}


@pytest.mark.parametrize("name", list(MERGES))
async def test_a_merge_of_an_entity_not_there_is_refused_before_any_step_runs(
    make_vault: Callable[..., Path], name: str
) -> None:
    """merge_observations reads the merged entity's note; the check asked only for the kept one,
    so a plan trashing the merged entity first (or naming none) validated, and the run trashed it,
    then stopped at the merge (note_not_found): its facts in the trash, not in the kept note."""
    plan = {"goal": name, "steps": MERGES[name]}
    async with started(make_vault(MEMORY)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"], checked
        [problem] = [p for p in checked["problems"] if p.get("step") == "g"]
        assert problem["code"] == "note_not_found" and "no memory entity there" in problem["message"], problem
        await vg.err("execute_plan", "validation_error", plan=plan)
        assert vg.snapshot() == start


async def test_a_supersede_of_what_an_earlier_step_added_is_valid(make_vault: Callable[..., Path]) -> None:
    plan = {
        "goal": "g",
        "steps": [_observe("o", "Ann", "Moved to Rome"), _supersede("s", "Ann", "Lives in Oslo", "Moved to Rome")],
    }
    async with started(make_vault(MEMORY)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run


ARGUMENTS = {  # a later step's arguments the call refuses whatever the earlier steps did
    "an empty fact": ("memory_store", {"key": "Ann", "value": "  "}),
    "an empty capture": ("capture", {"text": " \n"}),
    "an empty experience": ("record_experience", {"kind": "note", "text": " "}),
    "an empty observation": ("add_observations", {"observations": [{"entityName": "Ann", "contents": [" "]}]}),
    "an entity's relation to itself": (
        "create_relations", {"relations": [{"from": "Ann", "to": "ann", "relationType": "is"}]},
    ),
    "a filing with no target": ("process_capture", {"capture_id": "cap-0123456789", "action": "note"}),
}  # fmt: skip


@pytest.mark.parametrize("name", list(ARGUMENTS))
async def test_a_memory_call_s_refused_arguments_refuse_the_plan_before_any_step_runs(
    make_vault: Callable[..., Path], name: str
) -> None:
    """s79: the memory tools' `static_check` asks the call's own checks of its arguments
    (`prechecks.arguments`); before, such a plan validated, and the run made the first step's
    change, then stopped at this one (validation_error)."""
    tool, args = ARGUMENTS[name]
    plan = {"goal": name, "steps": [_observe("o", "Ann", "Moved to Rome"), {"id": "s", "tool": tool, "args": args}]}
    async with started(make_vault(MEMORY)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"], checked
        assert [(p.get("step"), p["code"]) for p in checked["problems"]] == [("s", "validation_error")], checked
        await vg.err("execute_plan", "validation_error", plan=plan)
        assert vg.snapshot() == start
