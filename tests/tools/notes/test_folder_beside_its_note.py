"""A move's path naming both a folder and the note beside it (the folder-note layout:
'Projects/' and 'Projects.md') is ambiguous_note, nothing changed. Found (s79 X4, item 3: the same
name through every path-taking tool): read_note and delete_note take 'Projects' for the note
Projects.md ('.md' optional), but move_note / rename_note took the folder: rename_note 'Projects'
-> 'Work' renamed the folder (no confirmation within one parent folder), leaving the note, where
the caller meant the note every other tool names so. 'Projects/' names the folder and
'Projects.md' the note, as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

VAULT = {
    "Projects.md": "the folder's note\n",
    "Projects/A.md": "a\n",
    "Src.md": "[[Projects]] and [[Projects/A]]\n",
    "Other/B.md": "b\n",
}
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("rename_note", {"path": "Projects", "new_path": "Work"}),
    ("rename_note", {"path": "Projects", "new_path": "Work", "dry_run": True}),
    ("move_note", {"path": "Projects", "new_path": "Archive/Projects"}),
    ("move_note", {"path": "Projects", "new_path": "Archive/", "dry_run": True}),
]


@pytest.mark.parametrize(("tool", "args"), CALLS)
async def test_a_folder_and_its_note_are_asked_apart(
    tool: str, args: dict[str, Any], make_vault: Callable[..., Path]
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        before = vg.snapshot()
        error = await vg.err(tool, "ambiguous_note", **args)
        assert error["details"]["candidates"] == ["Projects/", "Projects.md"], error
        assert vg.snapshot() == before
        assert (await vg.ok("read_note", path="Projects"))["path"] == "Projects.md"  # what every note tool names


async def test_the_folder_or_the_note_as_written_moves(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        note = await vg.ok("rename_note", path="Projects.md", new_path="Plans")
        assert note["path"] == "Plans.md" and (vg.root / "Projects" / "A.md").is_file()
        await vg.settled()
        assert vg.read("Src.md") == "[[Plans]] and [[Projects/A]]\n"
        folder = await vg.ok("rename_note", path="Projects/", new_path="Work")
        assert folder["path"] == "Work" and (vg.root / "Work" / "A.md").is_file()
        await vg.settled()
        assert vg.read("Src.md") == "[[Plans]] and [[Work/A]]\n"
        alone = await vg.ok("rename_note", path="Other", new_path="Others")  # no note beside it
        assert alone["path"] == "Others"
