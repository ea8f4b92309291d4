"""A long change that fails half way takes back only its own bytes: a note another caller edited
after the change wrote it keeps that edit, and the error says what could not be put back.

Before, the rollback of a link-rewriting move wrote each rewritten note's old text back without
looking, and a failed `bulk_create_notes` deleted the notes it had made the same way: another
agent's append to one of them, made while the change was writing, was lost without a word. Each
change runs on the hub vault of tests/tools/test_long_changes.py, held in its commit phase after
its third file; meanwhile another call appends to a note the change has written, and a note the
change has still to write is edited behind its back (the `conflict` that fails the change).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from service.dispatch.context import ToolResult
from tests.long_changes import Hold
from tests.tools.test_long_changes import hub

AGENT = "\nappended by another agent\n"


@pytest.mark.parametrize(
    ("tool", "args", "written"),
    [
        ("rename_note", {"path": "Hub", "new_path": "Centre"}, "[[Centre]]"),
        (
            "bulk_create_notes",
            {"notes": [{"path": f"Bulk/b{i:03}", "content": f"bulk {i}\n"} for i in range(50)]},
            "bulk",
        ),
    ],
    ids=["rename_note", "bulk_create_notes"],
)
async def test_a_rollback_keeps_an_edit_made_meanwhile(
    tmp_path: Path, tool: str, args: dict[str, Any], written: str
) -> None:
    hold = Hold("commit", 3, label=tool)
    async with hub(tmp_path, hold) as vg:
        results: list[ToolResult] = []

        async def call() -> None:
            results.append(await vg.app.dispatcher.call(tool, args, principal=vg.principal))

        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            await hold.reached.wait()
            folder = "Bulk" if tool == "bulk_create_notes" else "Notes"
            done = sorted(p for p in (vg.root / folder).glob("*.md") if written in p.read_text())
            assert len(done) >= 2
            edited = done[0].relative_to(vg.root).as_posix()
            await vg.ok("append_note", path=edited, content=AGENT)
            if tool == "bulk_create_notes":  # a note the call has still to make, made behind its back
                (vg.root / "Bulk/b049.md").write_text("made elsewhere\n")
            else:
                (vg.root / "Notes/n199.md").write_text("edited elsewhere [[Hub]]\n")
            hold.release.set()
        (result,) = results
        assert result.is_error, result.structured
        error = result.structured["error"]
        assert error["code"] in ("conflict", "already_exists"), error
        assert error["details"]["not_rolled_back"] == 1, error
        assert (vg.root / edited).read_text().endswith(AGENT)  # the other agent's edit is kept
        others = [p for p in done[1:] if (vg.root / folder / p.name).exists()]
        assert all(written not in p.read_text() for p in others)  # the rest was taken back
