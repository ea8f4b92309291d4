"""A large add_observations leaves the event loop free for other calls while it checks the
observations, reads and parses the entity's note and looks for near-duplicates: each of the three
runs in a worker thread once its input is past 64 KiB (`service.vault.offloop`). Checked by
ordering, not time: each step, once started, waits until another client's read_note has been
answered, which can only happen when the step is off the loop. Before, the input check and the
note's parse ran on the loop (1,000 observations of ~3,000 characters into an entity holding
1,000: the loop held ~0.8 s at once)."""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any

import pytest

from service.memory import store
from service.tools.memory import adding, writing
from tests.conftest import Harness

STEPS = ("checked", "parsed", "similar")


def _texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(f"w{rng.randrange(3000)}" for _ in range(500))[:3000] for _ in range(n)]


async def test_a_large_add_runs_its_checks_off_the_loop(vg: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    await vg.ok("create_entities", entities=[{"name": "Big", "entityType": "t", "observations": []}])
    await vg.ok("add_observations", observations=[{"entityName": "Big", "contents": _texts(2, 30)}])  # ~90 KB
    vg.root.joinpath("Other.md").write_text("# Other\n\nread meanwhile\n")
    events: list[tuple[str, str]] = []
    release = {step: threading.Event() for step in STEPS}
    began = {step: asyncio.Event() for step in STEPS}
    loop = asyncio.get_running_loop()
    armed: set[str] = set()

    def gate(step: str) -> None:
        """The step's work, held until another call was answered meanwhile (10 s at most: on the
        loop nothing else can run, and the order below then fails)."""
        if step not in armed:
            return
        armed.discard(step)
        events.append((step, "start"))
        loop.call_soon_threadsafe(began[step].set)
        release[step].wait(10)
        events.append((step, "end"))

    real_check, real_parse, real_similar = writing.no_controls, store.parse, adding.Similar

    def no_controls(text: str, field: str) -> None:  # the first check of each observation's text
        gate("checked")
        real_check(text, field)

    def parse(text: str, *args: Any) -> Any:
        if len(text) > 64 * 1024:
            gate("parsed")
        return real_parse(text, *args)

    def similar(*args: Any) -> Any:
        gate("similar")
        return real_similar(*args)

    monkeypatch.setattr(writing, "no_controls", no_controls)
    monkeypatch.setattr(store, "parse", parse)
    monkeypatch.setattr(adding, "Similar", similar)

    async def other_client() -> None:
        for step in STEPS:
            await asyncio.wait([asyncio.ensure_future(began[step].wait()), big], return_when=asyncio.FIRST_COMPLETED)
            out = await vg.ok("read_note", path="Other")
            assert "read meanwhile" in out["content"]
            events.append((step, "read"))
            release[step].set()

    armed.update(STEPS)
    big = asyncio.create_task(
        vg.ok("add_observations", observations=[{"entityName": "Big", "contents": _texts(1, 30)}])
    )
    reader = asyncio.create_task(other_client())
    out = await big
    await reader
    assert out["results"][0]["added"] == 30
    for step in STEPS:
        assert events.index((step, "start")) < events.index((step, "read")) < events.index((step, "end")), events
    opened = await vg.ok("open_nodes", names=["Big"])
    assert len(opened["entities"][0]["observations"]) == 60


async def test_a_small_add_stays_on_the_loop(vg: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    real = writing.no_controls

    def no_controls(text: str, field: str) -> None:
        threads.append(threading.current_thread().name)
        real(text, field)

    monkeypatch.setattr(writing, "no_controls", no_controls)
    await vg.ok("create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": []}])
    await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["likes tea", "walks"]}])
    assert threads == [threading.main_thread().name] * 2
