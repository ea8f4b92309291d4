"""Calls that add to one entity at once are written together (group commit), and each answers
for itself: one call's error (its compute budget, its bad input) fails that call only, the others'
changes are written (review R3 s63 #1: another agent's one-line add answered the big call's
compute_budget_exceeded); and the group's size decides whether it runs off the loop (#2)."""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any

import pytest

from service.memory import store
from service.tools.memory import similar
from tests.conftest import Harness


async def test_an_over_budget_add_fails_alone(vg: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    await vg.ok("create_entities", entities=[{"name": "Big", "entityType": "t", "observations": ["seed words"]}])
    monkeypatch.setattr(similar, "MAX_POSTINGS", 5_000)
    rng = random.Random(7)
    words = [f"w{i}" for i in range(300)]
    many = [" ".join(rng.choice(words) for _ in range(60)) for _ in range(200)]
    small_a, big, small_c = await asyncio.gather(
        vg.call("add_observations", observations=[{"entityName": "Big", "contents": ["first small one"]}]),
        vg.call("add_observations", observations=[{"entityName": "Big", "contents": many}]),
        vg.call("add_observations", observations=[{"entityName": "Big", "contents": ["another agent's fact"]}]),
    )
    assert big.is_error and big.structured is not None
    assert big.structured["error"]["code"] == "compute_budget_exceeded"
    assert not small_a.is_error and not small_c.is_error
    note = vg.read("Memory/Big.md")
    assert "first small one" in note and "another agent's fact" in note and many[0] not in note


async def test_a_refused_supersede_fails_alone(vg: Harness) -> None:
    await vg.ok("create_entities", entities=[{"name": "Big", "entityType": "t", "observations": ["likes tea"]}])
    first, refused, other = await asyncio.gather(
        vg.call("add_observations", observations=[{"entityName": "Big", "contents": ["first small one"]}]),
        vg.call("supersede_observation", entityName="Big", observation="likes tea", superseded_by="likes tea"),
        vg.call("add_observations", observations=[{"entityName": "Big", "contents": ["another agent's fact"]}]),
    )
    assert refused.is_error and not first.is_error and not other.is_error
    assert "another agent's fact" in vg.read("Memory/Big.md")


async def test_a_large_add_queued_behind_small_ones_runs_off_the_loop(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, int, bool]] = []  # (thread, changes applied together, the large add among them)
    real = store._applied

    def recorded(entity: Any, changes: Any, text: str) -> Any:
        out = real(entity, changes, text)
        adds_large = out is not None and "w0x899" in out and "w0x899" not in text
        calls.append((threading.current_thread().name, len(changes), adds_large))
        return out

    monkeypatch.setattr(store, "_applied", recorded)
    await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": []}])
    long = [f"fact {n}: " + " ".join(f"w{n}x{k}" for k in range(900)) for n in range(12)]  # ~80 KB
    results = await asyncio.gather(
        vg.call("add_observations", observations=[{"entityName": "Ann", "contents": ["small a"]}]),
        vg.call("add_observations", observations=[{"entityName": "Ann", "contents": ["small b"]}]),
        vg.call("add_observations", observations=[{"entityName": "Ann", "contents": long}]),
    )
    assert not any(r.is_error for r in results)
    # Whether the group commit took it with the small ones (their first change small) or alone
    # (under load the small ones may be applied before it is queued), it is applied off the loop.
    large = [thread for thread, _n, big in calls if big]
    assert len(large) == 1 and large[0] != threading.main_thread().name, calls
