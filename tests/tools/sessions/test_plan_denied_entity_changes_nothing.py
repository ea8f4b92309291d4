"""validate_plan of a memory step whose entity note the caller's ACL closes lists no change of
that note, through the dispatch chain (U10 s94): the step is refused (`acl_denied`), and before,
the effects also said the plan would create `Memory/Ann Lee.md` — which add_observations never
does, and which exists (the caller may not see it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.types import Principal
from tests.conftest import started

ANN = "---\nname: Ann Lee\nentityType: person\n---\n# Ann Lee\n\n## Observations\n- Leads Alpha ^m-1\n"
NARROWED = frozenset({"read:vault/Projects/**", "write:vault/Projects/**"})
STEPS = {
    "add_observations": {"observations": [{"entityName": "Ann Lee", "contents": ["x"]}]},
    "delete_observations": {"deletions": [{"entityName": "Ann Lee", "observations": ["^m-1"]}]},
    "create_relations": {"relations": [{"from": "Ann Lee", "to": "Projects/A", "relationType": "leads"}]},
    "supersede_observation": {"entityName": "Ann Lee", "observation": "^m-1", "superseded_by": "^m-1"},
}


@pytest.mark.parametrize("tool", sorted(STEPS))
async def test_a_step_on_a_denied_entity_is_refused_and_changes_no_file(
    make_vault: Callable[..., Path], tool: str
) -> None:
    async with started(make_vault({"Memory/Ann Lee.md": ANN, "Projects/A.md": "# A\n"})) as vg:
        await vg.indexed()
        vg.principal = Principal(subject="carol", scopes=NARROWED)
        step = {"id": "s", "tool": tool, "args": STEPS[tool]}
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [step]})
        assert {(p["step"], p["code"]) for p in checked["problems"]} == {("s", "acl_denied")}, checked
        effects = checked["effects"]
        assert effects["files_created"] == [] and effects["files_modified"] == [], effects
