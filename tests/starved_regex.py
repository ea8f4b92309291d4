"""A starved process for regular expressions under a budget: a pattern that never ends stands in
for the `regex` engine, and the budget's clock is a stand-in too, so a process given a quarter
of a CPU is simulated exactly (a `timeout` of CPU seconds runs out after four times as long on
the clock). Used by tests/unit/test_budget_wall_clock.py and the e2e tests."""

from __future__ import annotations

import threading
import time
import types
from typing import Any

import pytest

from service import budget

SHARE = 0.25  # CPU seconds the simulated process gets per second on the wall clock


class Clock:
    """The wall clock the budget reads: the real one plus the time the stand-in engine spent."""

    def __init__(self) -> None:
        self.spent = 0.0
        self._lock = threading.Lock()

    def monotonic(self) -> float:
        return time.monotonic() + self.spent

    def run_for(self, seconds: float) -> None:
        with self._lock:
            self.spent += seconds


class Starved:
    """A pattern whose match never ends (`(a|a)+$` on a long run of a's), on a starved process;
    `needs`: CPU seconds after which it does end."""

    def __init__(self, clock: Clock, needs: float = float("inf")) -> None:
        self.clock = clock
        self.needs = needs
        self.timeouts: list[float] = []

    def search(self, s: str, timeout: float) -> Any:
        self.timeouts.append(timeout)
        if timeout >= self.needs:
            self.clock.run_for(self.needs / SHARE)
            return "found"
        self.clock.run_for(timeout / SHARE)
        raise TimeoutError("regex timed out")

    def fullmatch(self, s: str, timeout: float) -> Any:
        return self.search(s, timeout)


@pytest.fixture(name="clock")
def clock_fixture(monkeypatch: pytest.MonkeyPatch) -> Clock:
    stand_in = Clock()
    monkeypatch.setattr(budget, "time", types.SimpleNamespace(monotonic=stand_in.monotonic))
    return stand_in
