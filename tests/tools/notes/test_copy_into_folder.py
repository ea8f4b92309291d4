"""copy_note's destination ending in `/` is the folder the copy goes into, with the note's name,
as move_note's is (77b7f53). Before, `copy_note Proj/Plan -> Copies/` was `path_invalid`
("names a folder"), and validate_plan refused the step for another reason ('Copies/.md')."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


async def test_a_copy_into_a_folder_keeps_the_notes_name(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Proj/Plan.md": "# Plan\n", "Copies/x.md": "x\n"})) as vg:
        await vg.indexed()
        step = {"id": "c", "tool": "copy_note", "args": {"path": "Plan", "new_path": "Copies/"}}
        checked = await vg.ok("validate_plan", plan={"goal": "copy it", "steps": [step]})
        assert checked["valid"] and checked["effects"]["files_created"] == ["Copies/Plan.md"], checked
        copied = await vg.ok("copy_note", path="Plan", new_path="Copies/")
        assert copied["path"] == "Copies/Plan.md" and vg.read("Copies/Plan.md") == "# Plan\n"
        again = await vg.err("copy_note", "already_exists", path="Proj/Plan", new_path="Copies/")
        assert "Copies/Plan.md" in again["message"]
