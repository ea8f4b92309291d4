"""A move's destination ending in `/` is the folder the note or folder goes into, keeping its
name, as `mv Plan.md Archive/` reads it. Before, the slash was dropped: `move_note Proj/Plan ->
Archive/` made a root note `Archive.md` beside the folder (every link rewritten to [[Archive]]),
while validate_plan refused the same step as `path_invalid`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

VAULT = {"Proj/Plan.md": "# Plan\n", "Proj/Sub/Deep.md": "# Deep\n", "Archive/old.md": "x\n", "Hub.md": "[[Plan]]\n"}


async def test_a_destination_ending_in_a_slash_is_the_folder_it_goes_into(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        step = {"id": "m", "tool": "move_note", "args": {"path": "Proj/Plan", "new_path": "Archive/"}}
        checked = await vg.ok("validate_plan", plan={"goal": "file it", "steps": [step]})
        assert checked["valid"], checked["problems"]
        [move] = checked["effects"]["files_moved"]
        assert (move["from"], move["to"]) == ("Proj/Plan.md", "Archive/Plan.md")
        moved = await vg.confirmed("move_note", path="Proj/Plan", new_path="Archive/")
        assert moved["path"] == "Archive/Plan.md" and vg.read("Archive/Plan.md") == "# Plan\n"
        assert not (vg.root / "Archive.md").exists() and vg.read("Hub.md") == "[[Plan]]\n"
        folder = await vg.confirmed("move_note", path="Proj/Sub", new_path="Archive/")  # a folder too
        assert folder["path"] == "Archive/Sub" and vg.read("Archive/Sub/Deep.md") == "# Deep\n"
        renamed = await vg.confirmed("rename_note", path="Archive/Plan", new_path="Proj/")
        assert renamed["path"] == "Proj/Plan.md"
