"""Index counts for status reports: exact per generation, at most a second old while a bulk load moves."""

from __future__ import annotations

from typing import Any

import pytest

from service.indexer import status
from service.indexer.status import Counts


class FakeDb:
    def __init__(self, clock: Clock | None = None, cost_s: float = 0.0) -> None:
        self.queries = 0
        self.clock = clock
        self.cost_s = cost_s

    async def fetchone(self, sql: str, params: Any = ()) -> tuple[int, ...]:
        self.queries += 1
        if self.clock is not None:
            self.clock.now += self.cost_s  # the read takes this long
        return (self.queries, 0, 0, 0, 0, 0, 0)

    async def fetchall(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        return []  # tasks per status, read with the counts (none here)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(status.time, "monotonic", c)
    return c


async def test_a_new_generation_reads_again_when_settled(clock: Clock) -> None:
    db = FakeDb()
    counts = Counts(db, "v")  # type: ignore[arg-type]
    assert (await counts.get(1))["notes"] == 1
    assert (await counts.get(1))["notes"] == 1
    assert (await counts.get(2))["notes"] == 2
    assert db.queries == 2


async def test_while_moving_the_counts_are_read_at_most_once_a_second(clock: Clock) -> None:
    db = FakeDb()
    counts = Counts(db, "v")  # type: ignore[arg-type]
    assert (await counts.get(1, moving=True))["notes"] == 1
    clock.now += 0.5
    assert (await counts.get(2, moving=True))["notes"] == 1  # a batch later, still the last read
    clock.now += 0.6
    assert (await counts.get(3, moving=True))["notes"] == 2
    assert (await counts.get(4))["notes"] == 3  # the load ended: exact again
    assert db.queries == 3


async def test_while_moving_counts_that_cost_long_to_read_are_reused_for_twenty_times_their_cost(clock: Clock) -> None:
    db = FakeDb(clock, cost_s=0.5)  # a load's tables without their indexes: every row scanned
    counts = Counts(db, "v")  # type: ignore[arg-type]
    assert (await counts.get(1, moving=True))["notes"] == 1
    clock.now += 9.0
    assert (await counts.get(2, moving=True))["notes"] == 1  # 9 s < 20 x 0.5 s
    clock.now += 1.5
    assert (await counts.get(3, moving=True))["notes"] == 2
    assert (await counts.get(4))["notes"] == 3  # the load ended: exact again
    assert db.queries == 3
