"""Over HTTP with the SDK client (tests/tools/sessions/test_plan_edits_foreseen.py through the
dispatch chain): a plan that patches a link into a note, sets a linking property, replaces a text
with a link and then moves the linked note. validate_plan's move entry counts the links the run
rewrites in the edited notes (`estimate` false), the confirmation lists exactly the files the
confirmed run changes, and undo_last_plan puts them back; a template applied before the move
is foreseen too (since s75); a patch of a heading the note
lacks is refused before the plan runs. Before, the edits were not foreseen: the preview counted
4 lines in 4 notes (P's one property, Home, Tasks, the template) and the run rewrote 7 in 6."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.e2e.test_plan_previews_e2e import _changed, _token
from tests.tools.sessions.test_plan_edits_foreseen import LINK, VAULT

PLAN = {
    "goal": "link the target from A, P and Crlf, then file it",
    "steps": [
        {"id": "p", "tool": "patch_note", "args": {"path": "A#Links", "content": LINK}},
        {"id": "s", "tool": "set_properties", "args": {"path": "P", "properties": {"see": [LINK]}}},
        {"id": "r", "tool": "replace_text", "args": {"path": "Crlf", "find": "none yet", "replace": LINK,
                                                     "dry_run": False}},
        {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}, "captureAs": "moved"},
    ],
}  # fmt: skip


async def test_a_moves_preview_counts_the_links_earlier_edits_add_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        start = snapshot(h.root)
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            checked = await ok(c, "validate_plan", plan=PLAN)
            assert checked["valid"], checked["problems"]
            [moved] = checked["effects"]["files_moved"]
            linking = ["A.md", "Crlf.md", "Home.md", "P.md", "Tasks.md", "Templates/Linked.md"]
            assert moved["rewritten_in"] == linking, moved  # A, Crlf and P's second link: the edits'
            assert (moved["links_rewritten"], moved["files_changed"], moved["estimate"]) == (7, 6, False), moved
            ask = await error(c, "execute_plan", plan=PLAN, effects_hash=checked["effects_hash"])
            assert ask["code"] == "elicit_required", ask
            assert "estimated" not in ask["details"]["preview"] and "run time" not in ask["details"]["preview"]
            before = snapshot(h.root)
            token = await _token(h, ask)
            run = await ok(c, "execute_plan", plan=PLAN, effects_hash=checked["effects_hash"], elicit_token=token)
            assert run["status"] == "done", run
            result = next(s for s in run["steps"] if s["id"] == "mv")["result"]
            assert (result["links_rewritten"], result["notes_rewritten"]) == (7, 6), result
            assert set(ask["details"]["files"]) == _changed(before, snapshot(h.root))
            assert (h.root / "Crlf.md").read_bytes() == b"# C\r\n\r\n## Links\r\n\r\n[[Archive/Target]]\r\n"
            ask = await error(c, "undo_last_plan")
            await ok(c, "undo_last_plan", elicit_token=await _token(h, ask))
            assert _changed(start, snapshot(h.root)) == set()


async def test_a_template_before_a_move_is_foreseen_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """The template's link in A is counted as the run rewrites it (until s75 the move's counts
    were an estimate here: the template is found by an async finder); undo restores every byte."""
    plan = {
        "goal": "apply a linking template, then file the target",
        "steps": [
            {"id": "t", "tool": "apply_template", "args": {"template": "Linked", "path": "A", "heading": ["Links"]}},
            {"id": "mv", "tool": "move_note", "args": {"path": "Target", "new_path": "Archive/"}, "captureAs": "m"},
            {"id": "d", "tool": "delete_note", "args": {"path": "Home", "permanent": True}},
        ],
    }
    async with e2e(make_vault(VAULT)) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        start = snapshot(h.root)
        checked = await ok(c, "validate_plan", plan=plan)
        [moved] = checked["effects"]["files_moved"]
        assert moved["estimate"] is False and "A.md" in moved["rewritten_in"], moved
        ask = await error(c, "execute_plan", plan=plan)
        assert "estimated" not in ask["details"]["preview"] and "run time" not in ask["details"]["preview"], ask
        before = snapshot(h.root)
        run = await ok(c, "execute_plan", plan=plan, elicit_token=await _token(h, ask))
        result = next(s for s in run["steps"] if s["id"] == "mv")["result"]
        assert (moved["links_rewritten"], moved["files_changed"]) == (
            result["links_rewritten"],
            result["notes_rewritten"],
        ), (moved, result)
        assert moved["rewritten_in"] == sorted(i["path"] for i in result["items"])
        assert set(ask["details"]["files"]) == _changed(before, snapshot(h.root))
        await ok(c, "undo_last_plan", elicit_token=await _token(h, await error(c, "undo_last_plan")))
        assert _changed(start, snapshot(h.root)) == set()


async def test_a_patch_of_a_heading_the_note_lacks_is_refused_up_front_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """tests/tools/sessions/test_plan_edit_refusals.py over HTTP: the plan is refused before its
    create runs (it validated, then stopped half done at the patch)."""
    plan = {
        "goal": "log, then patch a heading A lacks",
        "steps": [
            {"id": "mk", "tool": "create_note", "args": {"path": "Log", "content": "# Log\n"}},
            {"id": "p", "tool": "patch_note", "args": {"path": "A", "heading": ["Nope"], "content": LINK}},
        ],
    }
    async with e2e(make_vault(VAULT)) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        checked = await ok(c, "validate_plan", plan=plan)
        assert [(p["step"], p["code"]) for p in checked["problems"]] == [("p", "validation_error")], checked
        before = snapshot(h.root)
        refused = await error(c, "execute_plan", plan=plan)
        assert refused["code"] == "validation_error", refused
        assert _changed(before, snapshot(h.root)) == set()
