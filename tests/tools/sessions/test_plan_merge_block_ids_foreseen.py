"""validate_plan foresees a merge_observations the run refuses because the kept entity's note uses
one of the merged entity's block ids for another observation (`block_id_taken`): the check
composes both notes' texts as the plan's earlier steps leave them and asks the tool's own merge
(`merging.carried`) of them. Before s79 the plan validated and execute_plan stopped at the merge,
after the earlier steps had run. The check and the run agree both ways: an id an earlier step made
(a merge that carried it, a patch that wrote it) refuses the plan, an id an earlier step deleted
lets it through. Each plan's steps are also called one by one on a copy of the vault: the first call
refused is the step validate_plan named."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started
from tests.tools.sessions.test_plan_memory_deletes_foreseen import MEMORY, _forget
from tests.tools.sessions.test_plan_refusals_told import assert_told, first_refused


def _entity(name: str, *lines: str) -> str:
    return f"---\nname: {name}\nentityType: person\n---\n# {name}\n\n## Observations\n" + "".join(
        f"- {line}\n" for line in lines
    )


def _merge(step: str, kept: str, merged: str) -> dict[str, Any]:
    return {"id": step, "tool": "merge_observations", "args": {"entityName": kept, "mergedName": merged}}


VAULT = {
    **MEMORY,
    "Memory/Cy.md": _entity("Cy", "Plays chess ^m-1"),  # Ann's ^m-1 is "Likes tea"
    "Memory/Dee.md": _entity("Dee", "Reads books ^d-1"),
    "Memory/Eve.md": _entity("Eve", "Plays golf ^d-1"),  # Dee's id, another fact
}
PATCH = {
    "id": "p",
    "tool": "patch_note",
    "args": {"path": "Memory/Ann.md", "heading": ["Observations"], "position": "append", "content": "- Swims ^d-1"},
}
REFUSED: dict[str, list[dict[str, Any]]] = {
    "the kept note holds the id now": [_merge("g", "Ann", "Cy")],
    "an earlier merge carried the id": [_merge("g1", "Ann", "Dee"), _merge("g", "Ann", "Eve")],
    "an earlier patch wrote a line with the id": [PATCH, _merge("g", "Ann", "Dee")],
    "an earlier merge carried it into the merged one": [_merge("g1", "Eve", "Cy"), _merge("g", "Ann", "Eve")],
}
VALID: dict[str, list[dict[str, Any]]] = {
    "an earlier step deleted the kept note's line with the id": [_forget("d", "Ann", "^m-1"), _merge("g", "Ann", "Cy")],
    "ids apart": [_merge("g1", "Ann", "Dee"), _merge("g", "Ann", "Bob")],
    "the same line under the same id: skipped": [_merge("g1", "Ann", "Dee"), _merge("g", "Ann", "Dee")],
}


async def _first_refused(root: Path, steps: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """The step the calls refuse when made one by one, and the refusal."""
    async with started(root) as vg:
        return await first_refused(vg, steps)


@pytest.mark.parametrize("name", list(REFUSED))
async def test_a_merge_onto_a_block_id_taken_is_refused_before_any_step_runs(
    make_vault: Callable[..., Path], name: str
) -> None:
    steps = REFUSED[name]
    plan = {"goal": name, "steps": steps}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        start = vg.snapshot()
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"], checked
        [problem] = [p for p in checked["problems"] if p.get("step") == "g"]
        assert problem["code"] == "validation_error" and problem["details"]["reason"] == "block_id_taken", problem
        await vg.err("execute_plan", "validation_error", plan=plan)
        assert vg.snapshot() == start  # nothing ran
    ran = await _first_refused(make_vault(VAULT), steps)
    assert ran is not None and ran[1]["details"]["reason"] == "block_id_taken", ran
    assert_told(problem, *ran)  # the run's own error (E4 s84; the problem said only "block_id_taken" before)


@pytest.mark.parametrize("name", list(VALID))
async def test_a_merge_whose_ids_are_free_once_the_earlier_steps_ran_is_valid(
    make_vault: Callable[..., Path], name: str
) -> None:
    plan = {"goal": name, "steps": VALID[name]}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run
