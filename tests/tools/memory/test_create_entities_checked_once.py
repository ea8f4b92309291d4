"""create_entities' items are checked by one function, the call's and its `static_check`'s
(`prechecks.new_entities`), so a plan's check and a dry-run preview refuse what the call refuses
(M3 s85). Before, the static check was a copy that had drifted: validate_plan called a step valid
whose entity name holds an unpaired `%%` or names the capture inbox, and the run then failed on it.

A blank or whitespace-only `entityType` is refused (`validation_error`, `empty`), nothing
written: an entity note typed "" is found by no type and tells a reader nothing. Before, it was
written as `entityType: ""`.

A large call checks its items in a worker thread (`prechecks.observed`): the check of 50 entities
× 1,000 observations held the event loop for seconds (M2 s84). Checked by the thread, not by time."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from service.tools.memory import prechecks
from tests.conftest import Harness, snapshot

REFUSED = [
    ("Ann %% x", "person", {"field": "entities[1].name", "reason": "comment_marker"}),
    ("Inbox", "person", {"field": "name", "reason": "capture inbox"}),
    ("Ann", "   ", {"field": "entities[1].entityType", "reason": "empty"}),
    ("Ann", "", {"field": "entities[1].entityType", "reason": "empty"}),
]


@pytest.mark.parametrize(("name", "kind", "details"), REFUSED)
async def test_a_plan_refuses_what_the_call_refuses(vg: Harness, name: str, kind: str, details: dict[str, Any]) -> None:
    before = snapshot(vg.root)
    items = [
        {"name": "Bob", "entityType": "person", "observations": ["Plays bass"]},
        {"name": name, "entityType": kind, "observations": ["Likes tea"]},
    ]
    error = await vg.err("create_entities", "validation_error", entities=items)
    assert details.items() <= error["details"].items(), error
    plan = {"goal": "remember", "steps": [{"id": "e", "tool": "create_entities", "args": {"entities": items}}]}
    checked = await vg.ok("validate_plan", plan=plan)
    [problem] = checked["problems"]
    assert (problem["step"], problem["code"]) == ("e", "validation_error"), checked
    assert details.items() <= problem["details"].items(), problem
    assert snapshot(vg.root) == before


async def test_a_typed_entity_is_still_made(vg: Harness) -> None:
    out = await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": " person ", "observations": []}])
    assert out["created"][0]["entityType"] == "person", out


async def test_a_large_call_checks_its_items_off_the_loop(vg: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    on_loop: dict[str, bool] = {}
    real = prechecks.observation_text

    def observation_text(text: str, field: str) -> str:
        on_loop[field] = threading.current_thread() is threading.main_thread()
        return real(text, field)

    monkeypatch.setattr(prechecks, "observation_text", observation_text)
    texts = [f"fact {j} " + "x" * 100 for j in range(700)]  # ~75 KB
    await vg.ok(
        "create_entities",
        entities=[
            {"name": "Big", "entityType": "t", "observations": texts},
            {"name": "Also big", "entityType": "t", "observations": ["one"]},
        ],
    )
    assert on_loop == {"entities[0].observations": False, "entities[1].observations": False}, on_loop
    await vg.ok("create_entities", entities=[{"name": "Small", "entityType": "t", "observations": ["one"]}])
    assert on_loop["entities[0].observations"] is True, on_loop  # a small call's stays inline
