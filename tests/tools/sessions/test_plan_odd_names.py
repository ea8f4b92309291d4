"""A plan's steps take a note named with '|' or '#' as the single tools take it (A2 s83 item 2).

The checker (validate_plan, execute_plan's own check) split a step's address where a link splits
it, without asking what is on disk or what an earlier step made: `Odd|pipe` and `Odd#hash#Colors`
(bare names of `Themes/Odd|pipe.md`, `Themes/Odd#hash.md`) were foreseen as note_not_found,
`Themes/Odd|pipe#Colors` as a patch without its heading, and `Bar|folder/New#H` (a note an earlier
step made in a folder named with '|') as an edit of no note — each plan refused, though each call
alone succeeds. Now the checker finds the note the call finds, and the run does what it foresaw."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

pytestmark = pytest.mark.skipif(os.name == "nt", reason="'|' cannot be in a file name on Windows")

NOTE = "# {0}\n\n## Colors\nred\n"
FILES = {
    "Themes/Odd|pipe.md": NOTE.format("Odd pipe"),
    "Themes/Odd#hash.md": NOTE.format("Odd hash"),
    "Bar|folder/Inside.md": "# Inside\n",
    "Home#Contribute/Guide.md": "# Guide\n",
}
MADE = "# Made\n\n## H\nx\n"


def _step(sid: str, tool: str, path: str, **more: Any) -> dict[str, Any]:
    return {"id": sid, "tool": tool, "args": {"path": path, **more}}


PLAN = {
    "goal": "edit notes named with '|' and '#'",
    "steps": [
        _step("a", "append_note", "Odd|pipe", content="a"),
        _step("b", "patch_note", "Themes/Odd|pipe#Colors", content="b", position="append"),
        _step("c", "patch_note", "Odd#hash#Colors", content="c", position="prepend"),
        _step("d", "append_note", "Themes/Odd#hash.md", content="d"),
        _step("mk", "create_note", "Bar|folder/New", content=MADE),
        _step("p", "patch_note", "Bar|folder/New#H", content="p", position="append"),
        _step("q", "append_note", "Bar|folder/New", content="q"),
        _step("mk2", "create_note", "Home#Contribute/New", content=MADE),
        _step("p2", "patch_note", "Home#Contribute/New#H", content="p2", position="prepend"),
    ],
}
AFTER = {
    "Themes/Odd|pipe.md": "# Odd pipe\n\n## Colors\nred\na\n\nb",
    "Themes/Odd#hash.md": "# Odd hash\n\n## Colors\nc\n\nred\nd",
    "Bar|folder/New.md": "# Made\n\n## H\nx\n\np\nq",
    "Home#Contribute/New.md": "# Made\n\n## H\np2\n\nx\n",
}


async def test_a_plan_finds_notes_named_with_a_bar_or_a_hash_as_the_tools_do(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=PLAN)
        assert checked["valid"], checked["problems"]
        effects = checked["effects"]
        assert effects["failures"] == [] and effects["unresolved"] == [], effects
        assert sorted(effects["files_modified"]) == ["Themes/Odd#hash.md", "Themes/Odd|pipe.md"], effects
        assert effects["files_created"] == ["Bar|folder/New.md", "Home#Contribute/New.md"], effects
        run = await vg.ok("execute_plan", plan=PLAN, effects_hash=checked["effects_hash"])
        assert run["status"] == "done", run
        assert {rel: vg.read(rel) for rel in AFTER} == AFTER
