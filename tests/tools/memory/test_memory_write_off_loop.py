"""A memory write that brings much text runs its changes and the note's rendering in a worker
thread, the event loop free for other calls: add_observations of 1,000 long observations held
the loop for seconds while it checked them for near-duplicates (T1 s63 #5's size; F8's 'left').
A small one stays inline (a thread hop would cost more than the work)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from service.memory import store
from tests.conftest import Harness


async def test_a_large_add_runs_off_the_loop_and_a_small_one_inline(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []
    real = store._applied

    def recorded(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real(*args)

    monkeypatch.setattr(store, "_applied", recorded)
    await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": []}])
    await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["likes tea"]}])
    long = [f"fact {n}: " + " ".join(f"w{n}x{k}" for k in range(900)) for n in range(12)]  # ~80 KB in all
    out = await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": long}])
    assert out["results"][0]["added"] == 12
    assert threads[0] == threading.main_thread().name and threads[-1] != threading.main_thread().name
    opened = await vg.ok("open_nodes", names=["Ann"])
    assert len(opened["entities"][0]["observations"]) == 13
