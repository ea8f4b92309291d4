"""tests/tools/sessions/test_plan_memory_deletes_foreseen.py over HTTP with the SDK client (both
eras): a plan adding an observation linking the target then deleting it, deleting a relation to
the target, merging an entity whose note links it into another and deleting the merged one, then
moving the target. validate_plan's move entry is the run's result and no estimate (before s78 the
deletions and the merge made the entity notes' texts unforeseen: `estimate: true`, counts as on
disk), the confirmation's files are the files the run changed, and undo_last_plan restores every byte."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.e2e.test_plan_previews_e2e import _changed, _token
from tests.tools.sessions.test_plan_memory_deletes_foreseen import MEMORY, MERGE, MOVE, _forget, _unrelate
from tests.tools.sessions.test_plan_memory_texts_foreseen import _observe
from tests.tools.sessions.test_plan_preview_oracle import BIN, LINK

PLAN = {
    "goal": "forget what no longer holds, fold Bob into Ann, then file the target",
    "steps": [
        _observe("o", "Ann", f"Met at {LINK}"),
        _forget("d", "Ann", f"Met at {LINK}", f"Saw {LINK}"),
        _unrelate("u", "Ann", "Target", "visited"),
        MERGE,
        {"id": "x", "tool": "delete_entities", "args": {"entityNames": ["Bob"]}},
        MOVE,
        BIN,
    ],
}


async def test_memory_deletions_and_a_merge_are_foreseen_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    vault = make_vault(MEMORY)
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        start = snapshot(h.root)
        checked = await ok(c, "validate_plan", plan=PLAN)
        assert checked["valid"], checked["problems"]
        [moved] = checked["effects"]["files_moved"]
        assert moved["estimate"] is False, moved
        ask = await error(c, "execute_plan", plan=PLAN)
        before = snapshot(h.root)
        run = await ok(c, "execute_plan", plan=PLAN, elicit_token=await _token(h, ask))
        assert run["status"] == "done", run
        result = next(s for s in run["steps"] if s["id"] == "mv")["result"]
        assert (moved["links_rewritten"], moved["files_changed"], moved["rewritten_in"]) == (
            result["links_rewritten"],
            result["notes_rewritten"],
            sorted(i["path"] for i in result["items"]),
        ), (moved, result)
        assert "Memory/Ann.md" in moved["rewritten_in"], moved  # Bob's line it took in links the target
        assert set(ask["details"]["files"]) == _changed(before, snapshot(h.root))
        ann = h.read("Memory/Ann.md")
        assert "Knows [[Archive/Target]] ^b-1" in ann and "Saw" not in ann and "visited" not in ann, ann
        await ok(c, "undo_last_plan", elicit_token=await _token(h, await error(c, "undo_last_plan")))
        assert _changed(start, snapshot(h.root)) == set()
