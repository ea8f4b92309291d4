"""tests/tools/sessions/test_plan_preview_oracle.py over HTTP with the SDK client: a daily note made
from its template (which links the target) and an existing daily note that create_periodic_note
leaves alone, then the target moved. validate_plan's move entry equals the run's result (not an
estimate), the confirmation's files are the files the run changed (before s75 the existing daily
note was listed as modified, and the made one's template link was an estimate), and undo_last_plan
restores every byte."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.e2e.test_plan_previews_e2e import _changed, _token
from tests.tools.sessions.test_plan_preview_oracle import BIN, LINK, VAULT

PLAN = {
    "goal": "make today's notes, then file the target",
    "steps": [
        {"id": "d", "tool": "append_to_periodic_note", "args": {"date": "2026-12-05", "content": LINK}},
        {"id": "e", "tool": "create_periodic_note", "args": {"date": "2026-12-01"}},
        {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}, "captureAs": "m"},
        BIN,
    ],
}


async def test_daily_notes_made_before_a_move_are_foreseen_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(VAULT)) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        start = snapshot(h.root)
        checked = await ok(c, "validate_plan", plan=PLAN)
        assert checked["valid"], checked["problems"]
        assert "Daily/2026-12-01.md" not in checked["effects"]["files_modified"], checked["effects"]
        [moved] = checked["effects"]["files_moved"]
        assert moved["estimate"] is False and "Daily/2026-12-05.md" in moved["rewritten_in"], moved
        ask = await error(c, "execute_plan", plan=PLAN)
        before = snapshot(h.root)
        run = await ok(c, "execute_plan", plan=PLAN, elicit_token=await _token(h, ask))
        result = next(s for s in run["steps"] if s["id"] == "mv")["result"]
        assert (moved["links_rewritten"], moved["files_changed"], moved["rewritten_in"]) == (
            result["links_rewritten"],
            result["notes_rewritten"],
            sorted(i["path"] for i in result["items"]),
        ), (moved, result)
        assert set(ask["details"]["files"]) == _changed(before, snapshot(h.root))
        await ok(c, "undo_last_plan", elicit_token=await _token(h, await error(c, "undo_last_plan")))
        assert _changed(start, snapshot(h.root)) == set()


async def test_a_replace_in_a_folder_the_plan_makes_is_foreseen_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """tests/tools/sessions/test_plan_replace_on_plan.py over HTTP: no `bulk_changes`, no estimate,
    the confirmation's files are the files the run changed (before s75: files known only at run
    time, the move's counts an estimate short of the replaced links)."""
    plan = {
        "goal": "fill a new folder, link it, file the target",
        "steps": [
            {"id": "a", "tool": "create_note", "args": {"path": "Fresh/A", "content": "fix this\n"}},
            {"id": "r", "tool": "replace_text", "args": {"folder": "Fresh", "find": "fix", "replace": LINK,
                                                         "dry_run": False}},
            {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}, "captureAs": "m"},
            BIN,
        ],
    }  # fmt: skip
    async with e2e(make_vault(VAULT)) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        checked = await ok(c, "validate_plan", plan=plan)
        assert checked["effects"]["bulk_changes"] == [], checked["effects"]
        [moved] = checked["effects"]["files_moved"]
        assert moved["estimate"] is False and "Fresh/A.md" in moved["rewritten_in"], moved
        ask = await error(c, "execute_plan", plan=plan)
        before = snapshot(h.root)
        run = await ok(c, "execute_plan", plan=plan, elicit_token=await _token(h, ask))
        result = next(s for s in run["steps"] if s["id"] == "mv")["result"]
        assert (moved["links_rewritten"], moved["files_changed"]) == (
            result["links_rewritten"],
            result["notes_rewritten"],
        )
        assert set(ask["details"]["files"]) == _changed(before, snapshot(h.root))


async def test_links_repointed_then_the_new_target_moved_is_foreseen_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """An applied rewrite_links before a move (until s75 an estimate that counted none of the
    repointed links): the move's entry is its result, the confirmation's files are the changes."""
    plan = {
        "goal": "a second target, links to it, then file it",
        "steps": [
            {"id": "mk", "tool": "create_note", "args": {"path": "Hub/Target v2", "content": "# v2\n"}},
            {"id": "rw", "tool": "rewrite_links",
             "args": {"old_target": "Hub/Target", "new_target": "Hub/Target v2", "dry_run": False}},
            {"id": "mv", "tool": "move_note", "args": {"path": "Hub/Target v2", "new_path": "Archive/"},
             "captureAs": "m"},
            BIN,
        ],
    }  # fmt: skip
    async with e2e(make_vault(VAULT)) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        checked = await ok(c, "validate_plan", plan=plan)
        [moved] = checked["effects"]["files_moved"]
        assert moved["estimate"] is False and "Home.md" in moved["rewritten_in"], moved
        ask = await error(c, "execute_plan", plan=plan)
        before = snapshot(h.root)
        run = await ok(c, "execute_plan", plan=plan, elicit_token=await _token(h, ask))
        result = next(s for s in run["steps"] if s["id"] == "mv")["result"]
        assert (moved["links_rewritten"], moved["files_changed"], moved["rewritten_in"]) == (
            result["links_rewritten"],
            result["notes_rewritten"],
            sorted(i["path"] for i in result["items"]),
        ), (moved, result)
        assert set(ask["details"]["files"]) == _changed(before, snapshot(h.root))
