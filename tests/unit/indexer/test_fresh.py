"""Read-your-writes marks: a caller's claim is kept, a dropped caller's claim becomes the floor of
new marks (nobody loses a claim), and `settle` waits for exactly the current caller's number."""

from __future__ import annotations

import asyncio

import pytest

from service.errors import IndexUnavailable
from service.indexer import fresh


class Indexer:
    """Stands in for a vault's indexer: `applied_seq` moves when the test says so."""

    name = "indexer:test"
    vault_id = "v"

    def __init__(self) -> None:
        self.applied_seq = 0
        self.moved = asyncio.Event()

    async def caught_up(self, seq: int) -> None:
        while self.applied_seq < seq:
            self.moved.clear()
            await self.moved.wait()

    def apply_up_to(self, seq: int) -> None:
        self.applied_seq = seq
        self.moved.set()


def test_a_caller_keeps_its_mark_and_a_dropped_one_raises_the_floor() -> None:
    marks = fresh.Marks(limit=2)
    marks.of("a").owe("v", 5)
    marks.of("b").owe("v", 3)
    assert marks.of("a").seqs == {"v": 5}  # the same mark, now the most recent
    marks.of("c")  # drops b, the least recent
    assert len(marks) == 2
    assert marks.of("b").seqs == {"v": 3}  # a new mark for b starts at the floor b left
    marks.of("a").owe("v", 4)
    assert marks.of("a").seqs == {"v": 5}  # a claim never goes down


async def test_settle_waits_for_the_current_callers_number_only() -> None:
    indexer = Indexer()
    mark = fresh.Mark({"v": 2})
    await fresh.settle(indexer)  # no current mark: nothing to wait for
    token = fresh.current.set(mark)
    try:
        waiting = asyncio.create_task(fresh.settle(indexer))
        await asyncio.sleep(0)
        indexer.apply_up_to(1)
        await asyncio.sleep(0)
        assert not waiting.done()
        indexer.apply_up_to(2)
        await waiting
    finally:
        fresh.current.reset(token)


async def test_settle_past_its_bound_is_index_unavailable() -> None:
    token = fresh.current.set(fresh.Mark({"v": 1}))
    try:
        with pytest.raises(IndexUnavailable):
            await fresh.settle(Indexer(), within=0)
    finally:
        fresh.current.reset(token)
