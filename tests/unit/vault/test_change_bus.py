"""ChangeBus: listeners get every change before `publish` returns; `batch()` holds one task's
changes back and delivers them together, in order, when the block ends (also on an error)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from service.vault.events import ChangeBus, FileChange


class Recorder:
    def __init__(self) -> None:
        self.deliveries: list[list[str]] = []

    async def __call__(self, changes: Sequence[FileChange]) -> None:
        self.deliveries.append([f"{c.kind}:{c.path}" for c in changes])


def _bus() -> tuple[ChangeBus, Recorder]:
    bus, seen = ChangeBus(), Recorder()
    bus.subscribe(seen)
    return bus, seen


async def test_a_batch_delivers_once_in_order_and_nested_blocks_join_it() -> None:
    bus, seen = _bus()
    async with bus.batch():
        await bus.publish([FileChange("moved", "B.md", old_path="A.md")])
        async with bus.batch():
            await bus.publish([FileChange("modified", "C.md")])
        await bus.publish([FileChange("modified", "D.md")])
        assert seen.deliveries == []  # nothing yet, not even when the inner block ended
    assert seen.deliveries == [["moved:B.md", "modified:C.md", "modified:D.md"]]
    await bus.publish([FileChange("deleted", "E.md")])
    assert seen.deliveries[-1] == ["deleted:E.md"]  # outside a batch: at once


async def test_a_batch_is_delivered_when_its_block_raises() -> None:
    bus, seen = _bus()
    with pytest.raises(RuntimeError):
        async with bus.batch():
            await bus.publish([FileChange("modified", "A.md")])
            raise RuntimeError("a write failed; the rollback's changes must still be seen")
    assert seen.deliveries == [["modified:A.md"]]


async def test_another_task_is_not_held_back_by_a_batch() -> None:
    bus, seen = _bus()
    inside = asyncio.Event()
    done = asyncio.Event()

    async def batching() -> None:
        async with bus.batch():
            await bus.publish([FileChange("modified", "Mine.md")])
            inside.set()
            await done.wait()

    task = asyncio.create_task(batching())
    await inside.wait()
    await bus.publish([FileChange("modified", "Other.md")])  # another task: delivered now
    assert seen.deliveries == [["modified:Other.md"]]
    done.set()
    await task
    assert seen.deliveries == [["modified:Other.md"], ["modified:Mine.md"]]
