"""tests/tools/sessions/test_plan_memory_texts_foreseen.py over HTTP with the SDK client (both
eras): a plan making an entity whose observation links the target, adding an observation whose
source links it to an entity there and relating the new entity to it, then moving the target.
validate_plan's move entry is the run's result and no estimate (before s76 the memory notes' links
were missed and flagged `estimate`), the confirmation's files are the files the run changed, and
undo_last_plan restores every byte."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, snapshot
from tests.e2e.calls import error, ok
from tests.e2e.test_plan_previews_e2e import _changed, _token
from tests.tools.sessions.test_plan_memory_texts_foreseen import ANN, MOVE, _observe
from tests.tools.sessions.test_plan_preview_oracle import BIN, LINK, VAULT

BOB = {"name": "Bob", "entityType": "person", "observations": [f"Leads {LINK}"]}
PLAN = {
    "goal": "remember who works on the target, then file it",
    "steps": [
        {"id": "e", "tool": "create_entities", "args": {"entities": [BOB]}},
        _observe("o", "Ann", "Works on the launch", source=LINK),
        {
            "id": "r",
            "tool": "create_relations",
            "args": {
                "relations": [
                    {"from": "Bob", "to": "Target", "relationType": "owns"},
                    {"from": "Ann", "to": "Bob", "relationType": "knows"},
                ]
            },
        },
        MOVE,
        BIN,
    ],
}


async def test_memory_notes_linking_a_moved_note_are_foreseen_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    vault = make_vault({**VAULT, "Memory/Ann.md": ANN})
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        start = snapshot(h.root)
        checked = await ok(c, "validate_plan", plan=PLAN)
        [moved] = checked["effects"]["files_moved"]
        assert moved["estimate"] is False, moved
        assert {"Memory/Ann.md", "Memory/Bob.md"} <= set(moved["rewritten_in"]), moved
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
        assert "[[Archive/Target]]" in h.read("Memory/Ann.md") and "owns [[Archive/Target]]" in h.read("Memory/Bob.md")
        await ok(c, "undo_last_plan", elicit_token=await _token(h, await error(c, "undo_last_plan")))
        assert _changed(start, snapshot(h.root)) == set()


async def test_a_capture_filed_into_an_entity_is_foreseen_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """s79: a pending capture linking the target, filed into Ann, then the target moved: the move's
    entry counts Ann's new observation and is no estimate (before, `estimate: true`, Ann missed)."""
    vault = make_vault({**VAULT, "Memory/Ann.md": ANN})
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        made = await ok(c, "capture", text=f"Ann met Bob at {LINK}")
        filing = {"capture_id": made["id"], "action": "entity", "target": "Ann"}
        plan = {"goal": "g", "steps": [{"id": "f", "tool": "process_capture", "args": filing}, MOVE, BIN]}
        await h.indexed()
        checked = await ok(c, "validate_plan", plan=plan)
        [moved] = checked["effects"]["files_moved"]
        assert moved["estimate"] is False and "Memory/Ann.md" in moved["rewritten_in"], moved
        ask = await error(c, "execute_plan", plan=plan)
        run = await ok(c, "execute_plan", plan=plan, elicit_token=await _token(h, ask))
        result = next(s for s in run["steps"] if s["id"] == "mv")["result"]
        assert moved["rewritten_in"] == sorted(i["path"] for i in result["items"]), (moved, result)
        assert "[[Archive/Target]]" in h.read("Memory/Ann.md")


async def test_a_fact_kept_under_a_new_key_is_foreseen_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """s79: memory_store making Memory/Rent.md with a fact linking the target, then the target
    moved: the move's entry counts the new note and is no estimate (before, `estimate: true`)."""
    vault = make_vault({**VAULT, "Memory/Ann.md": ANN})
    kept = {"id": "k", "tool": "memory_store", "args": {"key": "Rent", "value": f"Paid at {LINK}"}}
    plan = {"goal": "g", "steps": [kept, MOVE, BIN]}
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        checked = await ok(c, "validate_plan", plan=plan)
        [moved] = checked["effects"]["files_moved"]
        assert moved["estimate"] is False and "Memory/Rent.md" in moved["rewritten_in"], moved
        run = await ok(
            c, "execute_plan", plan=plan, elicit_token=await _token(h, await error(c, "execute_plan", plan=plan))
        )
        result = next(s for s in run["steps"] if s["id"] == "mv")["result"]
        assert moved["rewritten_in"] == sorted(i["path"] for i in result["items"]), (moved, result)
        assert "[[Archive/Target]]" in h.read("Memory/Rent.md")
