"""validate_plan names a note made by a name holding a dot as the tools make it: 'Plan v1.2.md'.

The note tools add '.md' to a new note's path unless it ends in it ('Plan v1.2' is
'Plan v1.2.md', 'Notes 02.12.2026' is 'Notes 02.12.2026.md'), but a plan's effects took any dot
in the name for an extension: files_created listed 'Plan v1.2', a file no run makes, for
create_note, copy_note's new_path, append_note create_if_missing and bulk_create_notes (found
comparing a plan's effects with the files its run makes, reviewing fbd54040's copy names)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

STEPS = [
    {"id": "mk", "tool": "create_note", "args": {"path": "Plan v1.2", "content": "x\n"}},
    {"id": "cp", "tool": "copy_note", "args": {"path": "A", "new_path": "Copies/Copy v2.0"}},
    {
        "id": "ap",
        "tool": "append_note",
        "args": {"path": "Log 02.12.2026", "content": "x\n", "create_if_missing": True},
    },
    {"id": "bk", "tool": "bulk_create_notes", "args": {"notes": [{"path": "Bulk/N 1.5", "content": "y\n"}]}},
]


async def test_notes_made_by_dotted_names_are_previewed_where_the_run_makes_them(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"A.md": "a\n"})) as vg:
        await vg.indexed()
        plan = {"goal": "notes with dotted names", "steps": STEPS}
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        before = vg.snapshot()
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run
        made = sorted(vg.changed_since(before))
        assert (
            sorted(effects["files_created"])
            == made
            == [
                "Bulk/N 1.5.md",
                "Copies/Copy v2.0.md",
                "Log 02.12.2026.md",
                "Plan v1.2.md",
            ]
        )
