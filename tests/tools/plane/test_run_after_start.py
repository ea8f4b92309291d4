"""A run the schedule finds due starts only once the server has been up `[plane]
after_start_minutes`: a short session (a stdio server spawned for one task) does not start a run it
would not finish, which its stop cancelled, recorded nothing of and left due at the next start.

The server's uptime is a clock the test moves (`service.plane.plane.uptime`) and the schedule's
wait on it returns when the test moves it (`nap`): nothing waits for minutes, nothing is timed."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from service.plane import plane as plane_module
from tests.conftest import started

VAULT = {"Home.md": "# Home\n\nSee [[Other]].\n", "Other.md": "# Other\n"}


class Uptime:
    """The server's uptime, moved by the test; the schedule's wait on it ends when it moves."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: list[float] = []
        self.waiting = asyncio.Event()
        self.moved = asyncio.Event()

    def __call__(self) -> float:
        return self.now

    async def nap(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.waiting.set()
        await self.moved.wait()
        self.moved.clear()

    def move(self, seconds: float) -> None:
        self.now += seconds
        self.moved.set()


async def until(check: Callable[[], Awaitable[bool]]) -> None:
    """Until `check()` holds, bounded (a minute at least, a loaded machine)."""
    for _ in range(3000):
        if await check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the condition did not come")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Uptime:
    """The plane's uptime clock and its wait, moved by the test."""
    clock = Uptime()
    monkeypatch.setattr(plane_module, "uptime", clock, raising=False)
    monkeypatch.setattr(plane_module, "nap", clock.nap, raising=False)
    return clock


async def test_a_due_run_waits_until_the_server_has_been_up_5_minutes(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, clock: Uptime
) -> None:
    monkeypatch.setattr(plane_module, "CHECK_S", 0.05)  # the changes are looked at every 50 ms
    plane = {"after_changes": 1, "interval_minutes": 600}  # after_start_minutes: 5 by default
    async with started(make_vault(VAULT), plane=plane) as vg:
        await vg.indexed()
        await vg.ok("create_note", path="New.md", content="# New\n")  # the run is due: a note changed

        async def held_or_ran() -> bool:
            return clock.waiting.is_set() or (await vg.app.plane.saved("main"))["last_run"] is not None

        await until(held_or_ran)
        status = await vg.ok("plane_status")
        assert status["running"] is None and status["last_run"] is None  # due, and not started
        assert clock.waits and clock.waits[0] == pytest.approx(0.05)  # it looks again at the next check

        clock.move(4 * 60)  # up 4 minutes: still held
        clock.waiting.clear()
        await until(lambda: _true(clock.waiting.is_set()))  # it looked again
        assert (await vg.app.plane.saved("main"))["last_run"] is None

        clock.move(61)  # up 5 minutes and a second: the run starts (after a quiet second) and is recorded

        async def recorded() -> bool:
            return (await vg.app.plane.saved("main"))["last_run"] is not None

        await until(recorded)
        assert (await vg.app.plane.saved("main"))["summary"]["trigger"] == "changes"
        assert (await vg.ok("plane_status"))["last_run"] is not None


async def test_with_after_start_minutes_0_a_due_run_starts_at_the_first_pause(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, clock: Uptime
) -> None:
    monkeypatch.setattr(plane_module, "CHECK_S", 0.05)
    plane = {"after_changes": 1, "interval_minutes": 600, "after_start_minutes": 0}
    async with started(make_vault(VAULT), plane=plane) as vg:
        await vg.indexed()
        await vg.ok("create_note", path="New.md", content="# New\n")

        async def recorded() -> bool:
            return (await vg.app.plane.saved("main"))["last_run"] is not None

        await until(recorded)
        assert clock.waits == []  # never held for the uptime


async def _true(value: bool) -> bool:
    return value
