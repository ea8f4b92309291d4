"""Macros: saved plans with typed parameters, validated on save and on run, per vault."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import snapshot, started

MACRO = {
    "goal": "start a project note",
    "params": [
        {"name": "title", "type": "string", "description": "Project name."},
        {"name": "status", "type": "string", "default": "active", "description": "Initial status."},
    ],
    "steps": [
        {"id": "note", "tool": "create_note", "args": {"path": "Projects/${title}", "content": "# ${title}\n"}},
        {
            "id": "props",
            "tool": "set_properties",
            "args": {"path": "$steps.note.path", "properties": {"status": "${status}"}},
        },
    ],
}


@pytest.mark.covers("save_macro", "success")
@pytest.mark.covers("list_macros", "success")
@pytest.mark.covers("run_macro", "success")
@pytest.mark.covers("delete_macro", "success")
async def test_a_macro_is_saved_listed_run_undone_and_deleted(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        before = snapshot(vg.root)
        saved = await vg.ok("save_macro", name="new-project", description="A project note.", plan=MACRO)
        assert not saved["replaced"] and [p["required"] for p in saved["params"]] == [True, False]
        listed = await vg.ok("list_macros")
        [item] = listed["items"]
        assert item["name"] == "new-project" and item["steps"] == 2
        assert item["params_schema"]["required"] == ["title"]
        assert item["params_schema"]["properties"]["status"]["default"] == "active"
        run = await vg.ok("run_macro", name="new-project", params={"title": "Apollo"})
        assert run["status"] == "done" and "status: active" in vg.read("Projects/Apollo.md")
        await vg.confirmed("undo_last_plan")
        assert snapshot(vg.root) == before
        again = await vg.ok("save_macro", name="new-project", plan=MACRO)
        assert again["replaced"]
        assert (await vg.ok("delete_macro", name="new-project"))["deleted"]
        assert (await vg.ok("list_macros"))["items"] == []


@pytest.mark.covers("save_macro", "failure")
@pytest.mark.covers("run_macro", "failure")
@pytest.mark.covers("delete_macro", "failure")
@pytest.mark.covers("list_macros", "failure")
async def test_macro_failures_change_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        before = snapshot(vg.root)
        broken = {**MACRO, "steps": [{"id": "x", "tool": "create_note", "args": {"path": "${nope}"}}]}
        error = await vg.err("save_macro", "validation_error", name="broken", plan=broken)
        assert error["details"]["problems"][0]["code"] == "bad_reference"
        await vg.err("save_macro", "validation_error", name="bad name!", plan=MACRO)
        await vg.err("run_macro", "not_found", name="missing")
        await vg.ok("save_macro", name="m", plan=MACRO)
        error = await vg.err("run_macro", "validation_error", name="m")  # title has no default
        assert error["details"]["problems"][0]["code"] == "missing_param"
        error = await vg.err("run_macro", "validation_error", name="m", params={"title": 5})
        assert error["details"]["problems"][0]["code"] == "bad_param"
        await vg.err("delete_macro", "not_found", name="missing")
        await vg.err("list_macros", "vault_not_found", vault="nowhere")
        assert snapshot(vg.root) == before
