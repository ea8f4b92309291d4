"""A plan whose move names the note an earlier create_note made as `$steps.mk.path`, over HTTP
with the SDK client (tests/tools/sessions/test_plan_step_path_refs.py through the dispatch
chain): validate_plan lists the note where the run leaves it and the move in `files_moved`, not
under `unresolved`, and the confirmation lists exactly the files the confirmed run changes.
Before, the note was listed at its first path, where no file is after the run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.e2e.test_plan_previews_e2e import _changed, _token
from tests.tools.sessions.test_plan_step_path_refs import REFERENCE


async def test_a_move_of_a_made_notes_path_is_previewed_where_the_run_leaves_it(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n", "Archive/Old.md": "# Old\n"})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            checked = await ok(c, "validate_plan", plan=REFERENCE)
            assert checked["valid"], checked["problems"]
            effects = checked["effects"]
            assert effects["files_created"] == ["Archive/Publishing hub.md"] and effects["unresolved"] == []
            assert [(m["from"], m["to"]) for m in effects["files_moved"]] == [
                ("Inbox/Publishing hub.md", "Archive/Publishing hub.md")
            ]
            ask = await error(c, "execute_plan", plan=REFERENCE, effects_hash=checked["effects_hash"])
            assert ask["code"] == "elicit_required", ask
            files = ask["details"]["files"]
            before = snapshot(h.root)
            token = await _token(h, ask)
            run = await ok(c, "execute_plan", plan=REFERENCE, effects_hash=checked["effects_hash"], elicit_token=token)
            assert run["status"] == "done", run
            assert set(files) == _changed(before, snapshot(h.root)) == {"Archive/Publishing hub.md"}
            assert (
                h.read("Archive/Publishing hub.md") == "# Hub\n" and not (h.root / "Inbox/Publishing hub.md").exists()
            )
