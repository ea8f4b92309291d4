"""A plan's confirmation lists exactly the files the confirmed run changes on disk, for plans
whose later steps work on what earlier steps made: a note the plan creates and then moves is
listed where it ends (its first name is no file after the run), and a soft delete lists the
copy it puts in the vault's `.trash/` (a new file there, as Obsidian's own delete makes)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started
from tests.tools.test_previews_match_changes import _check, _vault

CREATE_MOVE_DELETE: dict[str, Any] = {
    "goal": "draft a note, file it, clear the old one",
    "steps": [
        {"id": "draft", "tool": "create_note", "args": {"path": "Drafts/Report.md", "content": "# Report\n"}},
        {
            "id": "file",
            "tool": "move_note",
            "args": {"path": "Drafts/Report.md", "new_path": "Archive/"},
            "dependsOn": ["draft"],
        },
        {
            "id": "tag",
            "tool": "add_tags",
            "args": {"path": "Archive/Report.md", "tags": ["filed"]},
            "dependsOn": ["file"],
        },
        {"id": "clear", "tool": "delete_note", "args": {"path": "Alone.md"}},
    ],
}


DRAFT_THEN_BIN: dict[str, Any] = {  # a note made and soft-deleted: only its copy in the trash remains
    "goal": "a scratch note, binned",
    "steps": [
        {"id": "scratch", "tool": "create_note", "args": {"path": "Scratch.md", "content": "# S\n"}},
        {"id": "bin", "tool": "delete_note", "args": {"path": "Scratch.md"}, "dependsOn": ["scratch"]},
    ],
}
MOVED_TWICE: dict[str, Any] = {  # through a path no file is at before the plan nor after it
    "goal": "file the other note, then rename it",
    "steps": [
        {"id": "file", "tool": "move_note", "args": {"path": "Hub/Other.md", "new_path": "Archive/"}},
        {
            "id": "rename",
            "tool": "rename_note",
            "args": {"path": "Archive/Other.md", "new_path": "Archive/Elsewhere.md"},
            "dependsOn": ["file"],
        },
    ],
}
MADE_IN_A_MOVED_FOLDER: dict[str, Any] = {  # a note made in a folder the plan then moves
    "goal": "add to the hub, then archive the hub",
    "steps": [
        {"id": "add", "tool": "create_note", "args": {"path": "Hub/Added.md", "content": "# Added\n"}},
        {
            "id": "archive",
            "tool": "move_note",
            "args": {"path": "Hub", "new_path": "Archive/Hub"},
            "dependsOn": ["add"],
        },
    ],
}
TWICE_BINNED: dict[str, Any] = {  # a trash copy already there: the next free name, as the delete picks it
    "goal": "bin two notes of one name",
    "steps": [
        {"id": "one", "tool": "delete_note", "args": {"path": "Alone.md"}},
        {
            "id": "again",
            "tool": "create_note",
            "args": {"path": "Alone.md", "content": "# Again\n"},
            "dependsOn": ["one"],
        },
        {"id": "two", "tool": "delete_note", "args": {"path": "Alone.md"}, "dependsOn": ["again"]},
    ],
}
PLANS = {
    "create-move-tag-soft-delete": (CREATE_MOVE_DELETE, {"Archive/Report.md", ".trash/Alone.md"}),
    "create-then-soft-delete": (DRAFT_THEN_BIN, {".trash/Scratch.md"}),
    "moved-twice": (MOVED_TWICE, {"Hub/Other.md", "Archive/Elsewhere.md"}),
    "made-in-a-moved-folder": (MADE_IN_A_MOVED_FOLDER, {"Archive/Hub/Added.md", "Archive/Hub/Target.md"}),
    "binned-twice": (TWICE_BINNED, {"Alone.md", ".trash/Alone.md", ".trash/Alone 1.md"}),
}


@pytest.mark.parametrize("case", sorted(PLANS))
async def test_a_plans_confirmation_lists_what_its_run_changes(
    make_vault: Callable[..., Path], capsys: pytest.CaptureFixture[str], case: str
) -> None:
    plan, among = PLANS[case]
    async with started(make_vault(_vault())) as vg:
        await vg.indexed()
        changed = await _check(vg, capsys, "execute_plan", plan=plan)
        assert among <= changed, sorted(changed)
