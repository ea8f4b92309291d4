"""The garbage collector's settings for a server process (service/collector.py): the young
threshold raised at start, the start-up heap frozen once every index is ready and not before,
everything handed back at stop; only an app that owns its process does it."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Callable
from pathlib import Path

from service.activity import Activity
from service.app import VaultgateApp
from service.collector import YOUNG, Collector
from tests.conftest import settings_for


class Gate:
    def __init__(self) -> None:
        self.open = asyncio.Event()

    async def wait_ready(self, within: float) -> None:
        await asyncio.wait_for(self.open.wait(), within)


async def test_the_heap_is_frozen_once_every_index_is_ready_and_handed_back_at_stop() -> None:
    before = gc.get_threshold()
    gates = [Gate(), Gate()]
    collector = Collector(gates, young=12_345)
    await collector.start()
    try:
        assert gc.get_threshold() == (12_345, before[1], before[2])
        gates[1].open.set()
        for _ in range(5):
            await asyncio.sleep(0)
        assert collector.frozen == 0 and gc.get_freeze_count() == 0  # one index is not ready yet
        gates[0].open.set()
        for _ in range(6000):  # bounded (60 s): the freeze runs in the collector's own task
            if collector.frozen:
                break
            await asyncio.sleep(0.01)
        assert collector.frozen > 1000 and 0 < gc.get_freeze_count() <= collector.frozen  # some die since
    finally:
        await collector.stop()
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before


async def test_a_stop_before_the_indexes_are_ready_freezes_nothing() -> None:
    before = gc.get_threshold()
    collector = Collector([Gate()])
    await collector.start()
    await collector.stop()
    assert collector.frozen == 0 and gc.get_freeze_count() == 0 and gc.get_threshold() == before


async def test_only_an_app_that_owns_its_process_sets_the_collector(make_vault: Callable[..., Path]) -> None:
    root = make_vault()
    before = gc.get_threshold()
    embedded = VaultgateApp(settings_for(root))
    assert not any(isinstance(c, Collector) for c in embedded.components)
    app = VaultgateApp(settings_for(root), owns_process=True)
    async with app.running():
        assert gc.get_threshold()[0] == YOUNG
        collector = next(c for c in app.components if isinstance(c, Collector))
        for _ in range(6000):
            if collector.frozen:
                break
            await asyncio.sleep(0.01)
        assert collector.frozen and 0 < gc.get_freeze_count() <= collector.frozen
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before


async def test_the_freeze_waits_for_the_callers_to_pause() -> None:
    activity = Activity()
    gate = Gate()
    gate.open.set()
    activity.begin()
    collector = Collector([gate], activity)
    await collector.start()
    try:
        for _ in range(20):
            await asyncio.sleep(0)
        assert collector.frozen == 0  # a call runs: the collection would stop it
        activity.end()
        activity.last = float("-inf")  # as if the last call began long ago
        for _ in range(6000):
            if collector.frozen:
                break
            await asyncio.sleep(0.01)
        assert collector.frozen > 0
    finally:
        await collector.stop()


async def test_after_the_freeze_full_collections_sweep_what_came_later() -> None:
    class Cycle:
        def __init__(self) -> None:
            self.me = self

    gate = Gate()
    gate.open.set()
    collector = Collector([gate], sweep_every_s=0.0)
    await collector.start()
    try:
        for _ in range(6000):
            if collector.frozen:
                break
            await asyncio.sleep(0.01)
        gc.disable()  # only the sweeps collect from here on
        try:
            probe = weakref.ref(Cycle())
            assert probe() is not None  # a cycle: reference counting alone never frees it
            swept = collector.sweeps
            for _ in range(6000):
                if collector.sweeps > swept and probe() is None:
                    break
                await asyncio.sleep(0.01)
            assert collector.sweeps > swept and probe() is None
        finally:
            gc.enable()
    finally:
        await collector.stop()
