"""An edit whose target its note lacks as the plan's earlier steps leave it — a patch of a heading,
block or anchor the note does not hold, a task line that holds no task (`conflict`, as set_task_status
answers when the line named with its text holds none) — is foreseen failing: with
`onError: stop` validate_plan reports it with the step and execute_plan refuses the plan before any
step runs; with `continue` it is listed in the effects' failures and its note is not counted as
modified. Before, such a plan validated and stopped half done at run time (its earlier steps
applied, to be undone by hand). A target an earlier step makes (a heading it patches in, a made
note's section) is no failure; one only an unforeseen step may make (a template) is left to the run.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

VAULT = {
    "A.md": "# A\n\n## Links\n\nnone yet ^b1\n",
    "Tasks.md": "# Tasks\n\n- [ ] call\n",
    "Scratch.md": "scratch\n",
    "Templates/Added.md": "## Added\n",
    ".obsidian/templates.json": json.dumps({"folder": "Templates"}),
}
MAKE = {"id": "mk", "tool": "create_note", "args": {"path": "Log", "content": "# Log\n"}}
FAILING: dict[str, dict[str, Any]] = {
    "a heading the note lacks": {"tool": "patch_note", "args": {"path": "A", "heading": ["Nope"], "content": "x"}},
    "a section the path names": {"tool": "patch_note", "args": {"path": "A#Nope", "content": "x"}},
    "a block the note lacks": {"tool": "patch_note", "args": {"path": "A", "block": "zz", "content": "x"}},
    "an anchor the note lacks": {"tool": "patch_note", "args": {"path": "A", "anchor": "absent text", "content": "x"}},
    "a line that holds no task": {
        "tool": "set_task_status",
        "args": {"path": "Tasks", "line": 1, "status": "x", "expected_text": "call"},
    },
    "inline tags under a missing heading": {
        "tool": "add_tags",
        "args": {"path": "A", "tags": ["t"], "inline": True, "heading": ["Nope"]},
    },
}


@pytest.mark.parametrize("name", list(FAILING))
async def test_an_edit_whose_target_is_missing_is_refused_before_the_plan_runs(
    make_vault: Callable[..., Path], name: str
) -> None:
    plan = {"goal": name, "steps": [MAKE, {"id": "e", **FAILING[name]}]}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert not checked["valid"], checked
        code = "conflict" if FAILING[name]["tool"] == "set_task_status" else "validation_error"  # the tool's own
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("e", code)], checked
        before = vg.snapshot()
        refused = await vg.err("execute_plan", "validation_error", plan=plan)
        assert refused["details"]["problems"][0]["step"] == "e", refused
        assert vg.snapshot() == before  # not even the create ran


async def test_with_continue_the_failure_is_listed_and_the_note_not_counted(make_vault: Callable[..., Path]) -> None:
    plan = {
        "goal": "patch a missing heading, go on",
        "steps": [
            {"id": "e", "onError": "continue", **FAILING["a heading the note lacks"]},
            {"id": "rm", "tool": "delete_note", "args": {"path": "Scratch", "permanent": True}},  # asks a human
        ],
    }
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        effects = checked["effects"]
        assert [(f["step"], f["code"], f["path"], f["stops"]) for f in effects["failures"]] == [
            ("e", "validation_error", "A.md", False)
        ], effects
        assert effects["files_modified"] == [], effects
        asked = await vg.err("execute_plan", "elicit_required", plan=plan)
        before = vg.snapshot()
        run = await vg.confirmed("execute_plan", plan=plan)
        assert [s["status"] for s in run["steps"]] == ["failed", "ok"], run["steps"]
        assert asked["details"]["files"] == sorted(vg.changed_since(before)) == ["Scratch.md"]


PASSING: dict[str, list[dict[str, Any]]] = {
    "a heading an earlier patch adds": [
        {"tool": "patch_note", "args": {"path": "A", "heading": ["Links"], "content": "## New\n", "position": "after"}},
        {"tool": "patch_note", "args": {"path": "A", "heading": ["New"], "content": "under new"}},
    ],
    "a made note's section": [
        MAKE,
        {"tool": "patch_note", "args": {"path": "$steps.mk.path", "heading": ["Log"], "content": "entry"}},
    ],
    "a heading only a template adds": [
        {"tool": "apply_template", "args": {"template": "Added", "path": "A"}},
        {"tool": "patch_note", "args": {"path": "A#Added", "content": "under added"}},
    ],
    "a task an earlier append adds": [
        {"tool": "append_note", "args": {"path": "Tasks", "content": "- [ ] write\n"}},
        {"tool": "set_task_status", "args": {"path": "Tasks", "line": 4, "status": "x", "expected_text": "write"}},
    ],
}


@pytest.mark.parametrize("name", list(PASSING))
async def test_a_target_an_earlier_step_makes_is_no_failure(make_vault: Callable[..., Path], name: str) -> None:
    plan = {"goal": name, "steps": [{"id": f"s{i}", **s} for i, s in enumerate(PASSING[name])]}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"] and checked["effects"]["failures"] == [], checked
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run["steps"]
