"""A plan that moves a note and then points links at it, over HTTP with the SDK client: the
confirmation execute_plan asks up front names the note the rewrite edits. Before, the check
planned the rewrite towards the note's old path, which the move had emptied, and the confirmation
named only the moved note while the confirmed run also rewrote A.md."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

PLAN: dict[str, Any] = {
    "goal": "move Y, then point the links to X at it",
    "steps": [
        {"id": "a", "tool": "move_note", "args": {"path": "Y.md", "new_path": "Sub/Y"}},
        {
            "id": "b",
            "tool": "rewrite_links",
            "args": {"old_target": "X", "new_target": "Y", "dry_run": False},
            "dependsOn": ["a"],
        },
    ],
}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


async def test_the_confirmation_names_the_note_a_rewrite_to_a_moved_note_edits(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault({"X.md": "x\n", "Y.md": "y\n", "A.md": "[[X]]\n"})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            checked = await ok(c, "validate_plan", plan=PLAN)
            assert checked["effects"]["files_modified"] == ["A.md"], checked["effects"]
            asked = await error(c, "execute_plan", plan=PLAN)
            assert asked["code"] == "elicit_required", asked
            before = {k: v for k, v in _files(h.root).items() if not k.startswith(".")}
            token = await h.token_for("execute_plan", plan=PLAN)
            run = await ok(c, "execute_plan", plan=PLAN, elicit_token=token)
            assert run["status"] == "done", run
            after = {k: v for k, v in _files(h.root).items() if not k.startswith(".")}
            changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
            assert set(asked["details"]["files"]) == changed == {"A.md", "Y.md", "Sub/Y.md"}, asked["details"]


async def test_a_move_step_with_a_misspelt_new_path_is_a_plan_problem(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """It was internal_error: the check previewed a move the step never made."""
    plan = {"goal": "g", "steps": [{"id": "b", "tool": "rename_note", "args": {"path": "A.md", "new_name": "Z"}}]}
    async with e2e(make_vault({"A.md": "a\n", "Home.md": "[[A]]\n"})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            checked = await ok(c, "validate_plan", plan=plan)
            assert not checked["valid"] and {p["code"] for p in checked["problems"]} == {"validation_error"}, checked
            refused = await error(c, "execute_plan", plan=plan)
            assert refused["code"] == "validation_error", refused
