"""A plan that makes a note and then moves it, or points links at it, over HTTP with the SDK
client: the confirmation execute_plan asks up front names exactly the files the confirmed run
changes, the note whose link the move rewrites (unresolved on disk until the plan made its
target) and the note a rewrite to the made note edits included. Before, both were missing from
the confirmation and the run changed them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

MAKE = {"id": "a", "tool": "create_note", "args": {"path": "New/Fresh", "content": "# F\n"}}
PLANS = {
    "move of the made note": [
        MAKE,
        {"id": "mv", "tool": "move_note", "args": {"path": "New/Fresh", "new_path": "Archive/Fresh"}},
    ],
    "move of the made folder": [
        MAKE,
        {"id": "mv", "tool": "move_note", "args": {"path": "New", "new_path": "Archive/New"}},
    ],
    "rewrite to the made note": [
        MAKE,
        {"id": "t", "tool": "rewrite_links", "args": {"old_target": "X", "new_target": "Fresh", "dry_run": False}},
    ],
}
VAULT = {"Home.md": "see [[New/Fresh]]\n", "A.md": "[[X]]\n", "B.md": "# B\n"}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", list(PLANS))
async def test_the_confirmation_names_the_files_the_run_changes(
    make_vault: Callable[..., Path], mode: str, name: str
) -> None:
    steps = PLANS[name]
    plan: dict[str, Any] = {"goal": name, "steps": [steps[0], {**steps[1], "dependsOn": ["a"]}]}
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            checked = await ok(c, "validate_plan", plan=plan)
            assert checked["valid"], checked["problems"]
            asked = await error(c, "execute_plan", plan=plan)
            assert asked["code"] == "elicit_required", asked
            before = {k: v for k, v in _files(h.root).items() if not k.startswith(".")}
            token = await h.token_for("execute_plan", plan=plan)
            run = await ok(c, "execute_plan", plan=plan, elicit_token=token)
            assert run["status"] == "done", run
            after = {k: v for k, v in _files(h.root).items() if not k.startswith(".")}
            changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
            assert set(asked["details"]["files"]) == changed, (asked["details"]["files"], sorted(changed))
            edited = "A.md" if name.startswith("rewrite") else "Home.md"
            assert edited in changed and "run time" not in asked["details"]["preview"]
