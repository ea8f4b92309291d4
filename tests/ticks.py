"""A clock for the plan budget's tests (`service.graph.plan_clock.now`): it moves one second each
time it is read, so a budget of 2.5 s is spent after the third note whatever the machine's load."""

from __future__ import annotations


class Ticks:
    """A clock that moves one second each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now
