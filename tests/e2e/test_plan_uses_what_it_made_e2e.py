"""Over HTTP with the SDK client (tests/tools/sessions/test_plan_uses_what_it_made.py through the
dispatch chain): a plan that bulk-creates notes and files each with a `foreach` over the paths
the bulk create answers, and one that makes a note linking to a note it then moves. validate_plan
lists the notes where the run leaves them and the move's rewrites in the made note; the
confirmation lists exactly the files the confirmed run changes; undo_last_plan puts them back.
Before, the foreach was known only at run time (the notes listed where they were made), and the
move's preview left out the made note's links the run rewrote."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.e2e.test_plan_previews_e2e import _changed, _token
from tests.tools.sessions.test_plan_uses_what_it_made import BULK_THEN_EACH, LINKED_THEN_MOVED, LINKERS, VAULT


@pytest.mark.parametrize("plan", [BULK_THEN_EACH, LINKED_THEN_MOVED], ids=["bulk then each", "linked then moved"])
async def test_a_plan_using_what_it_made_previews_what_the_run_changes(
    make_vault: Callable[..., Path], mode: str, plan: dict[str, Any]
) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        start = snapshot(h.root)
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            checked = await ok(c, "validate_plan", plan=plan)
            assert checked["valid"], checked["problems"]
            effects = checked["effects"]
            assert effects["unresolved"] == [], effects
            if plan is BULK_THEN_EACH:
                assert sorted(effects["files_created"]) == ["Archive/A.md", "Archive/B.md"], effects
            else:
                [moved] = effects["files_moved"]
                assert moved["rewritten_in"] == ["Cards/Card.md", "Home.md", "Log.md"], moved
                assert moved["links_rewritten"] == 4, moved
            ask = await error(c, "execute_plan", plan=plan, effects_hash=checked["effects_hash"])
            assert ask["code"] == "elicit_required", ask
            files = ask["details"]["files"]
            before = snapshot(h.root)
            token = await _token(h, ask)
            run = await ok(c, "execute_plan", plan=plan, effects_hash=checked["effects_hash"], elicit_token=token)
            assert run["status"] == "done", run
            assert set(files) == _changed(before, snapshot(h.root)), (files, _changed(before, snapshot(h.root)))
            if plan is LINKED_THEN_MOVED:
                assert h.read("Log.md") == "# Log\n\nsee [[Archive/Target]]\nand [[Archive/Target#x]]\n"
            ask = await error(c, "undo_last_plan")
            await ok(c, "undo_last_plan", elicit_token=await _token(h, ask))
            assert _changed(start, snapshot(h.root)) == set()


async def test_a_patch_without_a_target_is_refused_by_validate_plan_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """tests/tools/sessions/test_plan_patch_without_target.py over HTTP: the plan is refused whole,
    before its create runs."""
    from tests.tools.sessions.test_plan_patch_without_target import PLAN

    async with e2e(make_vault(VAULT)) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        checked = await ok(c, "validate_plan", plan=PLAN)
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("p", "validation_error")], checked
        before = snapshot(h.root)
        refused = await error(c, "execute_plan", plan=PLAN)
        assert refused["code"] == "validation_error", refused
        assert _changed(before, snapshot(h.root)) == set()


async def test_a_deleted_linking_note_is_no_later_rewrite_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """tests/tools/sessions/test_plan_uses_what_it_made.py's delete cases over HTTP: a move and a
    tag rename after a delete name neither the deleted note among the notes they rewrite nor as
    modified, and the confirmation lists exactly what the run changes."""
    plan = {
        "goal": "drop the home note, rename the tag, file the target",
        "steps": [
            {"id": "d", "tool": "delete_note", "args": {"path": "Home"}},
            {"id": "rt", "tool": "rename_tag", "args": {"old": "old", "new": "new", "dry_run": False}},
            {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}},
        ],
    }
    files = {**LINKERS, "Home.md": "see [[Hub/Target]] #old\n", "B.md": "[[Hub/Target]] #old\n"}
    async with e2e(make_vault(files)) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        checked = await ok(c, "validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        effects = checked["effects"]
        assert effects["files_modified"] == ["B.md"] and effects["files_deleted"] == ["Home.md"], effects
        [moved] = effects["files_moved"]
        assert moved["rewritten_in"] == ["B.md", "Notes/Ref.md"] and moved["links_rewritten"] == 2, moved
        ask = await error(c, "execute_plan", plan=plan, effects_hash=checked["effects_hash"])
        before = snapshot(h.root)
        token = await _token(h, ask)
        run = await ok(c, "execute_plan", plan=plan, effects_hash=checked["effects_hash"], elicit_token=token)
        assert run["status"] == "done", run
        assert set(ask["details"]["files"]) == _changed(before, snapshot(h.root))
