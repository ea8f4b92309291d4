"""Session 67's fixes that had only dispatch-chain tests, end to end over HTTP with the SDK client
in both eras (the plans' edits of absent notes: tests/e2e/test_plan_edit_absent_e2e.py; copy_note
into a folder and a plan's check of a move into one: tests/e2e/test_combined_tools_e2e.py):

- move_note and rename_note with a destination ending in '/' move a note or a folder into that
  folder keeping its name, confirmed as a person does, and a plan's run of such a move does too
  (tests/tools/notes/test_move_into_folder.py);
- every edit tool keeps a CRLF note's line endings, not only append_note: prepend_note,
  write_note append, patch_note by heading, block and anchor, apply_template into the note and
  process_capture filing into it (tests/tools/notes/test_crlf_edits.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import Harness, e2e
from tests.e2e.calls import error, ok
from tests.e2e.test_plan_previews_e2e import _token
from tests.tools.notes.test_crlf_edits import CRLF, TEMPLATES, _lone_lf

VAULT = {"Proj/Plan.md": "# Plan\n", "Proj/Sub/Deep.md": "# Deep\n", "Archive/old.md": "x\n", "Hub.md": "[[Plan]]\n"}


async def _confirmed(c: Client, h: Harness, tool: str, **args: Any) -> dict[str, Any]:
    ask = await error(c, tool, **args)
    assert ask["code"] == "elicit_required", ask
    return await ok(c, tool, **args, elicit_token=await _token(h, ask))


async def test_moves_into_a_folder_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            moved = await _confirmed(c, h, "move_note", path="Proj/Plan", new_path="Archive/")
            assert moved["path"] == "Archive/Plan.md" and h.read("Archive/Plan.md") == "# Plan\n"
            assert not (h.root / "Archive.md").exists() and h.read("Hub.md") == "[[Plan]]\n"
            folder = await _confirmed(c, h, "move_note", path="Proj/Sub", new_path="Archive/")
            assert folder["path"] == "Archive/Sub" and h.read("Archive/Sub/Deep.md") == "# Deep\n"
            renamed = await _confirmed(c, h, "rename_note", path="Archive/Plan", new_path="Proj/")
            assert renamed["path"] == "Proj/Plan.md"
            plan = {
                "goal": "file it",
                "steps": [{"id": "m", "tool": "move_note", "args": {"path": "Proj/Plan", "new_path": "Done/"}}],
            }
            run = await _confirmed(c, h, "execute_plan", plan=plan)
            assert run["status"] == "done" and h.read("Done/Plan.md") == "# Plan\n", run
            assert not (h.root / "Done.md").exists() and not (h.root / "Proj/Plan.md").exists()


async def test_edits_keep_a_crlf_notes_line_endings_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"C.md": CRLF, **TEMPLATES})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "prepend_note", path="C", content="pre\n")
            await ok(c, "write_note", path="C", mode="append", content="tail\n")
            await ok(c, "patch_note", path="C", heading=["T", "Log"], content="p1\np2\n")
            await ok(c, "patch_note", path="C", block="b1", position="after", content="after block\n")
            await ok(c, "patch_note", path="C", anchor="last", position="after", content=" and\nnext")
            await ok(c, "apply_template", template="T", path="C", heading=["T", "End"], position="append")
            await ok(c, "capture", text="filed into C")
            [pending] = (await ok(c, "list_captures", status="pending"))["items"]
            await ok(c, "process_capture", capture_id=pending["id"], action="note", target="C")
        data = (h.root / "C.md").read_bytes()
        assert _lone_lf(data) == 0, data
        for inserted in (
            b"pre\r\n",
            b"tail\r\n",
            b"p1\r\np2\r\n",
            b"after block\r\n",
            b"last and\r\nnext",
            b"## Added\r\n",
        ):
            assert inserted in data, (inserted, data)
        assert b"filed into C" in data
