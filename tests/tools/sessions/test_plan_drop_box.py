"""A plan's check and its run agree with the calls one by one in a write-only folder (a drop box:
`read: deny, write: allow`): changing a note that is there needs read access, so append_note /
add_observations on an existing note answer acl_denied when called directly. validate_plan said
`valid: true` (its path check asked only the write rule) and execute_plan ran the steps before and
then failed half way (A2's probe, session 77). Creating a new note there is still allowed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, snapshot, started

ACL = {
    "prefix_rules": [
        {"path": "Box", "read": "deny", "write": "allow"},
        {"path": "Memory", "read": "deny", "write": "allow"},
    ]
}
VAULT = {
    "Home.md": "# Home\n",
    "Box/Old.md": "# Old\n",
    "Memory/Ann.md": "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Likes tea ^m-a\n",
}
CHANGES = [
    ("append_note", {"path": "Box/Old.md", "content": "more"}),
    ("patch_note", {"path": "Box/Old.md", "heading": "Old", "content": "x"}),
    ("add_observations", {"observations": [{"entityName": "Ann", "contents": ["Plays chess"]}]}),
]


def _plan(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    first = {"id": "first", "tool": "create_note", "args": {"path": "Made.md", "content": "# Made\n"}}
    return {"goal": "g", "steps": [first, {"id": "change", "tool": tool, "args": args, "dependsOn": ["first"]}]}


@pytest.mark.parametrize(("tool", "args"), CHANGES)
async def test_a_plan_changing_a_drop_box_note_is_refused_as_the_call_is(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    async with started(make_vault(VAULT), acl=ACL) as vg:
        direct = await vg.err(tool, "acl_denied", **args)
        assert "read access" in direct["message"]
        before = snapshot(vg.root)
        checked = await vg.ok("validate_plan", plan=_plan(tool, args))
        assert checked["valid"] is False, checked
        assert any(p["code"] == "acl_denied" and p.get("step") == "change" for p in checked["problems"]), checked
        await vg.err("execute_plan", "validation_error", plan=_plan(tool, args))
        assert snapshot(vg.root) == before  # nothing of the plan ran


async def test_a_new_note_in_the_drop_box_is_still_planned(vg_box: Harness) -> None:
    plan = {"goal": "g", "steps": [{"id": "a", "tool": "create_note", "args": {"path": "Box/New.md", "content": "x"}}]}
    assert (await vg_box.ok("validate_plan", plan=plan))["valid"] is True
    assert (await vg_box.ok("execute_plan", plan=plan))["status"] == "done"


@pytest.fixture
async def vg_box(make_vault: Callable[..., Path]) -> Any:
    async with started(make_vault(VAULT), acl=ACL) as vg:
        yield vg
