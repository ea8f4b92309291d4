"""Activity (service/activity.py): the calls running and when the last one began, `quiet`,
which returns only once no call runs and none began for the quiet time, and `GiveWay`, with
which a worker thread waits while calls run, within a budget."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from service.activity import Activity, GiveWay, calls_pause
from tests.conftest import started


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def _settle(task: asyncio.Task[None]) -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_quiet_waits_while_a_call_runs_and_for_the_quiet_time_after_it() -> None:
    clock = Clock()
    activity = Activity(clock)
    await asyncio.wait_for(activity.quiet(5.0), 1)  # nothing ever ran
    activity.begin()
    activity.begin()
    waiter = asyncio.create_task(activity.quiet(5.0))
    await _settle(waiter)
    activity.end()
    await _settle(waiter)
    assert not waiter.done() and activity.running == 1
    activity.end()
    clock.now += 4.99  # the quiet time is not over: it sleeps the 0.01 s left, then checks again
    await _settle(waiter)
    assert not waiter.done()
    clock.now += 1.0
    await asyncio.wait_for(waiter, 5)


async def test_a_call_that_begins_during_the_wait_starts_it_again() -> None:
    clock = Clock()
    activity = Activity(clock)
    activity.begin()
    activity.end()
    waiter = asyncio.create_task(activity.quiet(0.0))
    activity.begin()  # before the waiter ran
    await _settle(waiter)
    assert not waiter.done()
    activity.end()
    await asyncio.wait_for(waiter, 5)


async def test_every_tool_call_is_counted_while_it_runs(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault()) as vg:
        activity = vg.app.activity
        before = activity.last
        seen: list[int] = []
        original = vg.app.dispatcher._run

        async def spy(call):  # type: ignore[no-untyped-def]
            seen.append(activity.running)
            return await original(call)

        vg.app.dispatcher._run = spy
        await vg.ok("list_notes")
        await vg.ok("call_capability", name="list_notes", arguments={})  # nested: counted twice
        assert seen == [1, 1, 2] and activity.running == 0 and activity.last > before


class CountingIdle(threading.Event):
    """`Activity.idle_now` that records each wait and returns at once (each wait lasts its whole
    step on `clock`, when given)."""

    def __init__(self, clock: Clock | None = None) -> None:
        super().__init__()
        self.waits: list[float] = []
        self.clock = clock

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout or 0.0)
        if self.clock is not None:
            self.clock.now += timeout or 0.0
        return False


def test_a_worker_thread_gives_way_only_while_a_call_runs() -> None:
    activity = Activity()
    activity.idle_now = idle = CountingIdle()
    give_way = GiveWay(activity, step_s=0.02, budget_s=5.0)
    give_way()
    assert idle.waits == []  # no call: the worker goes on
    activity.begin()
    give_way()
    assert idle.waits == [0.02]
    activity.end()
    give_way()
    assert idle.waits == [0.02]


def test_giving_way_ends_once_its_budget_is_spent() -> None:
    clock = Clock()
    activity = Activity(clock)
    activity.idle_now = idle = CountingIdle(clock)
    give_way = GiveWay(activity, step_s=0.2, budget_s=0.5, clock=clock)
    activity.begin()
    for _ in range(10):
        give_way()
    assert idle.waits == pytest.approx([0.2, 0.2, 0.1])  # the last step is what the budget has left


def test_a_waiting_worker_resumes_when_the_last_call_ends() -> None:
    activity = Activity()
    activity.begin()
    activity.begin()
    worker = threading.Thread(target=GiveWay(activity, step_s=60, budget_s=60))
    worker.start()
    activity.end()
    assert worker.is_alive()  # one call still runs
    activity.end()
    worker.join(30)
    assert not worker.is_alive()


def test_calls_pause_waits_while_a_call_of_any_app_runs_or_just_began() -> None:
    """`calls_pause` (the embedding batch threads, shared by the process): no wait without calls;
    a call running holds it until the call ends; a call begun less than the quiet time ago, the
    rest of that time; never longer than `within`."""
    import time

    quiet = Activity()
    assert calls_pause(0.05, 5.0) < 0.05  # no call anywhere (old activities began none lately)
    busy = Activity()
    busy.begin()
    worker_waited: list[float] = []
    worker = threading.Thread(target=lambda: worker_waited.append(calls_pause(0.0, 30.0)))
    worker.start()
    worker.join(0.2)
    assert worker.is_alive()  # a call runs
    busy.end()
    worker.join(30)
    assert not worker.is_alive() and 0.15 < worker_waited[0] < 30
    busy.begin()
    busy.end()
    started = time.monotonic()
    assert 0.1 <= calls_pause(0.3, 0.1) <= 0.3  # bounded by `within`
    assert calls_pause(0.3, 5.0) < 0.3  # the rest of the quiet time after the last call began
    assert time.monotonic() - started >= 0.25
    busy.begin()
    assert calls_pause(0.0, 0.05) == 0.05  # a call that never ends: the bound
    busy.end()
    del quiet


def test_the_embedding_batch_threads_give_way_before_each_text(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.embeddings import builtin

    asked: list[tuple[float, float]] = []
    monkeypatch.setattr(builtin, "calls_pause", lambda quiet_s, within: asked.append((quiet_s, within)) or 0.0)
    monkeypatch.setattr(builtin, "tokenizer", lambda: None)
    monkeypatch.setattr(builtin, "_session", lambda threads, stop=None: (None, "fake"))
    monkeypatch.setattr(builtin, "_embed_one", lambda session, tok, text: float(len(text)))
    pooled = [0.0] * 3
    builtin._take_turns(["a", "bb", "ccc"], iter(range(10)), pooled, threading.Event())  # type: ignore[arg-type]
    assert pooled == [1.0, 2.0, 3.0]
    assert asked == [(builtin.GIVE_WAY_QUIET_S, builtin.GIVE_WAY_MAX_S)] * 3


class _EndsWhenLookedAt(Activity):
    """A call that began long ago and ends between `calls_pause`'s two looks at `running`."""

    def __init__(self) -> None:
        self.looks = 0
        super().__init__(clock=lambda: 100.0)
        self.last = 0.0  # began 100 s ago

    @property  # type: ignore[override]
    def running(self) -> int:
        self.looks += 1
        return 1 if self.looks == 1 else 0

    @running.setter
    def running(self, value: int) -> None:
        pass


def test_calls_pause_after_a_long_call_ended_meanwhile_does_not_fail() -> None:
    """The embedding pass of a stdio instance failed with 'sleep length must be non-negative'
    (ValueError from the model's batch thread): a call running for longer than the quiet time
    ended between the look that listed it and the look that chose to sleep out the rest of the
    quiet time, which was then negative."""
    import gc

    gc.collect()  # activities of earlier tests that are gone
    ending = _EndsWhenLookedAt()
    assert calls_pause(1.0, 5.0) < 1.0
    assert ending.looks >= 2


def test_calls_pause_among_some_apps_waits_for_theirs_only() -> None:
    """The consolidation plane gives way to its own app's calls (`among`), not to another app's
    in the same process."""
    mine, other = Activity(), Activity()
    other.begin()
    assert calls_pause(0.0, 5.0, among=(mine,)) < 1.0  # another app's call does not hold it
    mine.begin()
    worker = threading.Thread(target=lambda: calls_pause(0.0, 30.0, among=(mine,)))
    worker.start()
    worker.join(0.2)
    assert worker.is_alive()  # its own app's call does
    mine.end()
    worker.join(30)
    assert not worker.is_alive()
    other.end()


async def test_a_call_set_aside_counts_as_not_running_while_it_waits() -> None:
    """`aside`: run_consolidation waiting for the run it started is no call the run gives way to;
    once it stops waiting it counts again, and an uncounted caller changes nothing."""
    activity = Activity()
    activity.begin()
    with activity.aside():
        assert activity.running == 0 and activity.idle_now.is_set()
        await asyncio.wait_for(activity.quiet(0.0), 5)
    assert activity.running == 1 and not activity.idle_now.is_set()
    with pytest.raises(RuntimeError), activity.aside():
        raise RuntimeError("the wait failed")
    assert activity.running == 1  # counted again however the wait ended
    activity.end()
    with activity.aside():  # a handler called outside the dispatcher: nothing to set aside
        assert activity.running == 0
    assert activity.running == 0 and activity.idle_now.is_set()
