"""A stop in the middle of a long change whose rollback cannot put everything back: the answer
says so instead of claiming the change was rolled back.

A rename of the hub note is held after its second file (the note already moved); someone makes a
new Hub.md meanwhile; the stop begins. The note cannot be moved back over the new file: before,
the call answered `server_stopping` with 'the change was rolled back' and nothing else, while
Centre.md stayed moved (undo_last_plan then found Hub.md a conflict).
"""

from __future__ import annotations

from pathlib import Path

import anyio

from service.dispatch.context import ToolResult
from tests.long_changes import Hold
from tests.tools.test_long_changes import hub


async def test_a_rollback_that_cannot_put_a_file_back_says_so(tmp_path: Path) -> None:
    hold = Hold("commit", 2, label="rename_note")
    async with hub(tmp_path, hold) as vg:
        results: list[ToolResult] = []

        async def call() -> None:
            args = {"path": "Hub", "new_path": "Centre"}
            results.append(await vg.app.dispatcher.call("rename_note", args, principal=vg.principal))

        async with anyio.create_task_group() as tg:
            tg.start_soon(call)
            with anyio.fail_after(60):
                await hold.reached.wait()
            assert (vg.root / "Centre.md").exists() and not (vg.root / "Hub.md").exists()
            (vg.root / "Hub.md").write_text("a new hub someone made\n")
            vg.app.plans.stopping()
            hold.release.set()
        (result,) = results
        error = result.structured["error"]
        assert error["code"] == "server_stopping", error
        assert error["details"]["not_rolled_back"] == 1, error
        assert "rolled back" not in error["message"] and "could not be put back" in error["message"]
        assert (vg.root / "Centre.md").exists()  # what the message owns up to
        assert (vg.root / "Hub.md").read_text() == "a new hub someone made\n"
