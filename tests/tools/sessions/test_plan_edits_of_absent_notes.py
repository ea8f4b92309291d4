"""A plan's check foresees an edit of a note that is not there as the run meets it: append_note
(without create_if_missing), prepend_note, patch_note, the property and tag edits and
set_task_status answer `note_not_found` for a missing note; they never create one. Before, the
check listed such a call as creating the note, passed the plan as valid, and the run then
failed at that step (after the earlier steps had changed the vault). Now the call is listed in
`effects.failures` (`note_not_found`), and with `onError: stop` validate_plan reports that the
plan stops there and execute_plan runs nothing; a note the plan's earlier steps make, or that
append_note's `create_if_missing` makes, is still an edit or a create."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

VAULT = {"Hub.md": "# Hub\n", "Proj/B.md": "# B\n\n- [ ] t\n"}
EDITS: dict[str, dict[str, Any]] = {
    "append_note": {"content": "x\n"},
    "prepend_note": {"content": "x\n"},
    "patch_note": {"anchor": "B", "content": "x"},
    "set_properties": {"properties": {"k": 1}},
    "delete_property": {"key": "k"},
    "add_tags": {"tags": ["t"]},
    "remove_tags": {"tags": ["t"]},
    "set_task_status": {"line": 3, "status": "x", "expected_text": "t"},
}


def _failures(effects: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    return [(f["step"], f["code"], f["path"], f["stops"]) for f in effects["failures"]]


@pytest.mark.parametrize("tool", sorted(EDITS))
async def test_an_edit_of_a_note_an_earlier_step_renamed_away_is_foreseen(
    make_vault: Callable[..., Path], tool: str
) -> None:
    plan = {
        "goal": "rename, then edit by the old name",
        "steps": [
            {"id": "r", "tool": "rename_note", "args": {"path": "Proj/B", "new_path": "B2"}},
            {"id": "e", "tool": tool, "args": {"path": "Proj/B", **EDITS[tool]}, "dependsOn": ["r"]},
        ],
    }
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"]
        assert _failures(checked["effects"]) == [("e", "note_not_found", "Proj/B.md", True)]
        assert "Proj/B.md" not in checked["effects"]["files_created"]
        before = vg.snapshot()
        error = await vg.err("execute_plan", "validation_error", plan=plan)
        assert [p["code"] for p in error["details"]["problems"]] == ["note_not_found"]
        assert vg.snapshot() == before  # refused whole: the rename did not run
        # the run meets what the check foresaw (its refusal lifted by onError: continue)
        plan["steps"][1]["onError"] = "continue"
        run = await vg.ok("execute_plan", plan=plan)
        assert [e["code"] for e in run["steps"][1]["errors"]] == ["note_not_found"]


async def test_an_append_to_a_missing_note_fails_unless_it_may_create_it(make_vault: Callable[..., Path]) -> None:
    append = {"id": "a", "tool": "append_note", "args": {"path": "Inbox/New", "content": "x\n"}}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [append]})
        assert not checked["valid"] and _failures(checked["effects"]) == [("a", "note_not_found", "Inbox/New.md", True)]
        creating = {**append, "args": {**append["args"], "create_if_missing": True}}
        made = {"id": "m", "tool": "create_note", "args": {"path": "Inbox/Made", "content": "# Made\n"}}
        edit = {"id": "e", "tool": "add_tags", "args": {"path": "Made", "tags": ["t"]}, "dependsOn": ["m"]}
        plan = {"goal": "g", "steps": [creating, made, edit]}
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        assert checked["effects"]["files_created"] == ["Inbox/New.md", "Inbox/Made.md"]
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run
