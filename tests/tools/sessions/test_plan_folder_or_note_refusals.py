"""A plan's check foresees the refusals a move gets from what is at its paths, as the call then
answers them: a path naming both a folder and the note beside it ('Projects' for 'Projects/' and
'Projects.md': `ambiguous_note`, `base_files.refuse_folder_and_note`), also where an earlier step
makes that note, and a folder moved onto a folder or file already there (`already_exists`,
`graph.move_checks.check_targets`). Before, validate_plan passed all three and the run stopped
half way at that step; and it refused a folder move written 'Projects/' (the way the call takes
to name the folder) as `path_invalid` ('Projects/.md'), though the call makes it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

VAULT = {
    "Projects.md": "the folder's note\n",
    "Projects/A.md": "a\n",
    "Other/B.md": "b\n",
    "Solo/C.md": "c\n",
    "Src.md": "[[Projects]] and [[A]]\n",
}


def _step(tool: str, sid: str = "m", **args: Any) -> dict[str, Any]:
    return {"id": sid, "tool": tool, "args": args}


async def _problems(vg: Harness, *steps: dict[str, Any]) -> list[tuple[str, str]]:
    checked = await vg.ok("validate_plan", plan={"goal": "tidy", "steps": list(steps)})
    return [(p["step"], p["code"]) for p in checked["problems"]]


async def test_a_move_of_a_name_a_folder_and_a_note_share_is_refused_up_front(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        before = vg.snapshot()
        assert await _problems(vg, _step("rename_note", path="Projects", new_path="Work")) == [("m", "ambiguous_note")]
        made_first = [
            _step("create_note", "c", path="Solo.md", content="s\n"),
            _step("move_note", path="Solo", new_path="Archive/Solo"),
        ]
        assert await _problems(vg, *made_first) == [("m", "ambiguous_note")]
        assert vg.snapshot() == before
        await vg.err("rename_note", "ambiguous_note", path="Projects", new_path="Work")  # what the run meets


async def test_a_folder_moved_onto_one_there_is_refused_up_front(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        assert await _problems(vg, _step("move_note", path="Other", new_path="Solo")) == [("m", "already_exists")]
        await vg.err("move_note", "already_exists", path="Other", new_path="Solo", dry_run=True)
        freed = [
            _step("move_note", "f", path="Solo/", new_path="Kept/"),
            _step("move_note", path="Other", new_path="Solo"),
        ]
        assert await _problems(vg, *freed) == []  # an earlier step moves it away: left to the run


async def test_a_folder_named_with_its_slash_moves_in_a_plan(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        steps = [
            _step("rename_note", path="Projects/", new_path="Work"),
            _step("append_note", "a", path="Work/A.md", content="more\n"),
        ]
        checked = await vg.ok("validate_plan", plan={"goal": "tidy", "steps": steps})
        assert checked["valid"], checked["problems"]
        [moved] = checked["effects"]["files_moved"]
        assert (moved["from"], moved["to"], moved["folder"]) == ("Projects", "Work", True)
        assert (await vg.ok("rename_note", path="Projects/", new_path="Work"))["path"] == "Work"
