"""A plan's preview is honest about a create onto a note already there (H6 #8, for plans): the
create_note / copy_note / bulk_create_notes call that the run answers `already_exists` is listed
in `effects.failures` (never counted in files_modified), following the plan's own earlier steps;
with `onError: stop` validate_plan reports that the plan stops there (a problem: execute_plan
runs nothing), with `continue` / `skip` the rest of the plan's effects are still shown."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, snapshot, started


def _plan(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"goal": "g", "steps": list(steps)}


def _create(step_id: str, path: str, **extra: Any) -> dict[str, Any]:
    return {"id": step_id, "tool": "create_note", "args": {"path": path, "content": "x\n"}, **extra}


def _failures(effects: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    return [(f["step"], f["code"], f["path"], f["stops"]) for f in effects["failures"]]


@pytest.fixture
async def vg(make_vault: Callable[..., Path]) -> Any:
    async with started(make_vault({"A.md": "# A\n", "B.md": "# B\n"})) as harness:
        yield harness


@pytest.mark.covers("validate_plan", "success")
async def test_a_create_onto_a_note_there_stops_the_plan_and_is_not_a_modify(vg: Harness) -> None:
    plan = _plan(
        _create("new", "C"),
        _create("onto", "A"),
        {"id": "tail", "tool": "append_note", "args": {"path": "B", "content": "y"}},
    )
    out = await vg.ok("validate_plan", plan=plan)
    assert not out["valid"]
    assert [(p["step"], p["code"]) for p in out["problems"]] == [("onto", "already_exists")]
    assert "stops" in out["problems"][0]["message"]
    effects = out["effects"]
    assert _failures(effects) == [("onto", "already_exists", "A.md", True)]
    assert "A.md" not in effects["files_modified"] and effects["files_created"] == ["C.md"]
    dry = await vg.err("execute_plan", "validation_error", plan=plan, dry_run=True)
    assert dry["details"]["problems"][0]["step"] == "onto"
    before = snapshot(vg.root)
    await vg.err("execute_plan", "validation_error", plan=plan)
    assert snapshot(vg.root) == before  # nothing ran: not C.md either


@pytest.mark.parametrize("on_error", ["continue", "skip"])
async def test_with_continue_or_skip_the_rest_is_still_shown(vg: Harness, on_error: str) -> None:
    copy = {"id": "cp", "tool": "copy_note", "args": {"path": "A", "new_path": "B"}, "onError": on_error}
    bulk = {
        "id": "bulk",
        "tool": "bulk_create_notes",
        "args": {"notes": [{"path": "D", "content": "d"}, {"path": "A", "content": "a"}]},
        "onError": on_error,
    }
    plan = _plan(copy, bulk, {"id": "tail", "tool": "append_note", "args": {"path": "B", "content": "y"}})
    out = await vg.ok("validate_plan", plan=plan)
    assert out["valid"], out["problems"]
    effects = out["effects"]
    assert _failures(effects) == [("cp", "already_exists", "B.md", False), ("bulk", "already_exists", "A.md", False)]
    assert effects["files_modified"] == ["B.md"] and effects["files_created"] == []  # the append only; D.md not made
    assert (await vg.ok("execute_plan", plan=plan, dry_run=True))["effects"] == effects
    shown = await vg.call("validate_plan", plan=plan)  # the text a client shows says so too
    assert "fails: cp (copy_note B.md): already_exists; the plan goes on" in shown.text
    run = await vg.ok("execute_plan", plan=plan)
    steps = {s["id"]: s for s in run["steps"]}
    assert (
        steps["cp"]["errors"][0]["code"] == "already_exists" and steps["bulk"]["errors"][0]["code"] == "already_exists"
    )
    assert not (vg.root / "D.md").exists() and vg.read("B.md").endswith("y")


async def test_the_prediction_follows_the_plans_own_earlier_steps(vg: Harness) -> None:
    recreate = _plan({"id": "rm", "tool": "delete_note", "args": {"path": "B"}}, _create("again", "B"))
    out = await vg.ok("validate_plan", plan=recreate)
    assert out["valid"] and out["effects"]["failures"] == []
    twice = _plan(_create("one", "E"), _create("two", "E", onError="continue"))
    out = await vg.ok("validate_plan", plan=twice)
    assert out["valid"] and _failures(out["effects"]) == [("two", "already_exists", "E.md", False)]
    assert out["effects"]["files_created"] == ["E.md"] and out["effects"]["files_modified"] == []
    run = await vg.confirmed("execute_plan", plan=twice)
    assert [s["status"] for s in run["steps"]] == ["ok", "failed"]
    assert run["steps"][1]["errors"][0]["code"] == "already_exists"
