"""A regular expression ends by its budget's deadline on the wall clock, also when the process gets
little CPU (issue 36 item 9).

The `regex` package's timeout counts the process's CPU time: on a busy machine a match given the
10 s budget ran for 13.5-19 s. Here a pattern that never ends stands in for the engine and the
budget's clock is a stand-in too, so a process given a quarter of a CPU is simulated exactly: a
`timeout` of CPU seconds runs out after four times as long on the clock. No real time is
measured."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from service import budget
from service.budget import Budget
from service.errors import ComputeBudgetExceeded
from tests.conftest import Harness, started
from tests.starved_regex import SHARE, Clock, Starved, clock_fixture  # noqa: F401 - the fixture `clock`


def test_a_match_on_a_starved_process_ends_by_the_deadline(clock: Clock) -> None:
    pattern = Starved(clock)
    with Budget(max_seconds=10.0).active(), pytest.raises(ComputeBudgetExceeded) as caught:
        budget.regex_call(pattern, "search", "a" * 54 + "!")
    assert caught.value.details == {"limit": "seconds", "regex": True, "max_seconds": 10.0}
    assert clock.spent <= 10.0 + 1e-6  # given the whole 10 s at once, it ran for 40
    assert pattern.timeouts[0] == budget.REGEX_SLICE_S
    assert sum(pattern.timeouts) <= 10.0 * SHARE + 1e-6  # never more CPU than the process gets


def test_a_match_that_needs_more_than_a_slice_still_completes(clock: Clock) -> None:
    pattern = Starved(clock, needs=0.3)
    with Budget(max_seconds=10.0).active():
        assert budget.regex_call(pattern, "search", "text") == "found"
    assert pattern.timeouts == [budget.REGEX_SLICE_S, budget.REGEX_SLICE_S * 4, budget.REGEX_SLICE_S * 16]


@pytest.fixture
async def vg(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    files = {"A.md": "---\nname: " + "a" * 54 + "\n---\n# A\n"}
    async with started(make_vault(files), search={"regex_max_budget_ms": 10_000}) as harness:
        await harness.indexed()
        yield harness


async def test_a_dataview_regex_answers_within_the_budget_it_states(
    vg: Harness, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.dataview import functions_lists

    pattern = Starved(clock)
    monkeypatch.setattr(functions_lists, "_compile", lambda source: pattern)
    for field in ('regextest("(a|a)+$", name + "!")', 'regexmatch("(a|a)+$", name + "!")'):
        before = clock.spent
        err = await vg.err("eval_dataview_field", "compute_budget_exceeded", path="A", field=field)
        assert (err["details"]["limit"], err["details"]["max_seconds"]) == ("seconds", 10.0)
        assert clock.spent - before <= err["details"]["max_seconds"]


def test_a_bases_replace_counts_only_the_attempt_that_completes(monkeypatch: pytest.MonkeyPatch) -> None:
    """`Budget.timed` may run a `sub` more than once (an attempt that ran out, then a longer one):
    the replacement's size count starts again with each attempt, so a result within the byte
    budget is never refused for the attempts before it."""
    import regex

    from service.bases.sequences import s_replace
    from service.bases.values import Regex
    from service.settings.limits import LimitsSettings

    def twice(self: Budget, run: Callable[[float], object]) -> object:
        run(10.0)  # an earlier attempt, all of its matches seen, its result thrown away
        return run(10.0)

    monkeypatch.setattr(Budget, "timed", twice)
    text = "x" * 400
    with Budget(LimitsSettings(max_value_bytes=1024), max_seconds=10.0).active():
        out = s_replace(text, [Regex("x", "g", regex.compile("x")), "yy"])  # 800 characters: 1,200 counted twice
    assert out == "yy" * 400
