"""A plan step that would create a name the vault refuses (a link character `#^[]`, an invisible
character, a Windows device name) is a problem of validate_plan, with the code the call answers
(path_invalid), and execute_plan refuses the plan before anyone is asked or anything is written;
a step writing a note that is already so named is no problem (T1 s62 #12, #9)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import e2e, snapshot, started

VAULT = {"Home.md": "# Home\n", "P/Plan.md": "# Plan\n", "U/smile#1.md": "old\n"}


def _plan(step: dict[str, Any]) -> dict[str, Any]:
    return {"goal": "g", "steps": [{"id": "ok", "tool": "append_note", "args": {"path": "Home", "content": "x"}}, step]}


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("create_note", {"path": "P/a[b]", "content": "x"}),
        ("create_note", {"path": "Ho\u00adme", "content": "x"}),
        ("create_note", {"path": "N^ew/inner", "content": "x"}),  # a new folder on the way
        ("create_folder", {"path": "Home\u3164"}),
        ("copy_note", {"path": "P/Plan", "new_path": "P/Plan]2"}),
        ("move_note", {"path": "P/Plan", "new_path": "Archive/Plan^2"}),
        ("create_note", {"path": "Nul", "content": "x"}),
    ],
)
async def test_a_plan_creating_a_refused_name_is_refused_before_it_runs(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    root = make_vault(VAULT)
    before = snapshot(root.parent)
    async with started(root) as vg:
        direct = await vg.err(tool, "path_invalid", **args)
        plan = _plan({"id": "bad", "tool": tool, "args": args})
        out = await vg.ok("validate_plan", plan=plan)
        assert not out["valid"]
        assert [(p["step"], p["code"]) for p in out["problems"]] == [("bad", "path_invalid")], out["problems"]
        assert direct["details"]["reason"] in out["problems"][0]["message"]
        await vg.err("execute_plan", "validation_error", plan=plan)
    after = {k: v for k, v in snapshot(root.parent).items() if ".vaultgate" not in k}
    assert after == {k: v for k, v in before.items() if ".vaultgate" not in k}


async def test_a_plan_writing_a_note_already_so_named_is_no_problem(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        plan = _plan({"id": "b", "tool": "append_note", "args": {"path": "U/smile#1.md", "content": "more"}})
        out = await vg.ok("validate_plan", plan=plan)
        assert out["valid"] and out["problems"] == []


SECTIONS = [
    ("append_note", {"path": "P/x#y", "content": "x", "create_if_missing": True}),
    ("write_note", {"path": "P/w#z", "content": "x"}),
    ("create_note", {"path": "P/c#d", "content": "x"}),
]


@pytest.mark.parametrize(("tool", "args"), SECTIONS, ids=[t for t, _ in SECTIONS])
async def test_a_step_whose_address_names_a_section_is_only_that_validation_error(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    """The call reads 'P/x#y' as note P/x, section y, and answers validation_error: the plan's
    check names that problem only, and no file 'P/x#y.md' that no call would make (R4 s62 F7: it
    listed it in files_created with a path_invalid 'reserved character' beside)."""
    async with started(make_vault(VAULT)) as vg:
        direct = await vg.err(tool, "validation_error", **args)
        out = await vg.ok("validate_plan", plan=_plan({"id": "bad", "tool": tool, "args": args}))
        assert [(p["step"], p["code"]) for p in out["problems"]] == [("bad", "validation_error")], out["problems"]
        assert direct["message"] in out["problems"][0]["message"]
        assert out["effects"]["files_created"] == [] and not out["valid"]


async def test_a_section_address_is_one_problem_over_http(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault(VAULT)) as (url, _), Client(url) as client:
        tool, args = SECTIONS[0]
        result = await client.call_tool("validate_plan", {"plan": _plan({"id": "bad", "tool": tool, "args": args})})
        out = result.structured_content
        assert not result.is_error and out is not None
        assert [p["code"] for p in out["problems"]] == ["validation_error"] and out["effects"]["files_created"] == []
