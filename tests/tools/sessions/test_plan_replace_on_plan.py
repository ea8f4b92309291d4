"""A replace_text step scoped to what the plan's earlier steps make — the folder they create notes
in, or the note one made (`path`) — is previewed from those notes' texts as the plan leaves them.
Before (s74 P5's left item, and a user pass over HTTP), its own dry run, which reads the vault as
it is now, failed on the missing scope: the step stayed a `bulk_changes` entry ("files known only
at run time"), and a later move's counts were an estimate that missed the links the replacement
wrote. Each plan here: not an estimate, no bulk change, the confirmation's files == the files the
run changed, the move's entry == its result, undo byte for byte (the oracle's `_check`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started
from tests.tools.sessions.test_plan_preview_oracle import BIN, LINK, VAULT, _check

MADE = [
    {"id": "a", "tool": "create_note", "args": {"path": "Fresh/A", "content": "#todo fix this\n"}},
    {"id": "b", "tool": "create_note", "args": {"path": "Fresh/Sub/B", "content": "fix that\n"}},
    {"id": "c", "tool": "create_note", "args": {"path": "Other/C", "content": "fix nothing here\n"}},
]
REPLACE = {"find": "fix", "replace": f"see {LINK}", "dry_run": False}
PLANS: dict[str, list[dict[str, Any]]] = {
    "in a folder the plan makes": [{"id": "r", "tool": "replace_text", "args": {**REPLACE, "folder": "Fresh"}}],
    "in folders the plan makes": [
        {"id": "r", "tool": "replace_text", "args": {**REPLACE, "folder": ["Fresh/Sub", "Other"]}}
    ],
    "in the note a step made, by its result": [
        {"id": "r", "tool": "replace_text", "args": {**REPLACE, "path": "$steps.a.path"}}
    ],
    "in the note a step made, by its name": [{"id": "r", "tool": "replace_text", "args": {**REPLACE, "path": "B"}}],
    "in a made folder, then a tag renamed": [
        {"id": "r", "tool": "replace_text", "args": {**REPLACE, "folder": "Fresh"}},
        {"id": "g", "tool": "rename_tag", "args": {"old": "todo", "new": "done", "dry_run": False}},
    ],
}


@pytest.mark.parametrize("name", list(PLANS))
async def test_a_replace_in_what_the_plan_makes_is_foreseen(make_vault: Callable[..., Path], name: str) -> None:
    move = {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}, "captureAs": "m"}
    plan = {"goal": name, "steps": [*MADE, *PLANS[name], move, BIN]}
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["effects"]["bulk_changes"] == [], checked["effects"]
        await _check(vg, plan)
