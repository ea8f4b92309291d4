"""A plan's confirmation, as an SDK client over HTTP sees it, lists exactly the files the
confirmed run then changes on disk, for a plan whose later steps use what earlier ones made
(tests/tools/sessions/test_plan_preview_matches_disk.py through the dispatch chain): a note it
creates and files away is listed where it ends, not under its first name, and a soft delete's
copy in `.trash/` is listed (the preview said 'create Drafts/Report.md' and left the trash out)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.e2e.test_plan_previews_e2e import _changed, _token
from tests.tools.sessions.test_plan_preview_matches_disk import CREATE_MOVE_DELETE


async def test_a_plans_confirmation_lists_what_its_run_changes_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    vault = {"Hub/Other.md": "# Other\n", "Alone.md": "# Alone\n\nSee [[Hub/Other]].\n"}
    async with e2e(make_vault(vault)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            checked = await ok(c, "validate_plan", plan=CREATE_MOVE_DELETE)
            assert checked["valid"], checked["problems"]
            assert checked["effects"]["files_created"] == ["Archive/Report.md", ".trash/Alone.md"]
            ask = await error(c, "execute_plan", plan=CREATE_MOVE_DELETE, effects_hash=checked["effects_hash"])
            assert ask["code"] == "elicit_required", ask
            files = ask["details"]["files"]
            assert "Drafts/Report.md" not in files and {"Archive/Report.md", ".trash/Alone.md"} <= set(files), files
            before = snapshot(h.root)
            token = await _token(h, ask)
            run = await ok(
                c, "execute_plan", plan=CREATE_MOVE_DELETE, effects_hash=checked["effects_hash"], elicit_token=token
            )
            assert run["status"] == "done", run
            assert set(files) == _changed(before, snapshot(h.root))
            assert "filed" in h.read("Archive/Report.md") and h.read(".trash/Alone.md").startswith("# Alone")
