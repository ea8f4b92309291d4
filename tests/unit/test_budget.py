"""service.budget: steps, time, value sizes and the running budget of a thread."""

from __future__ import annotations

import threading

import pytest
import regex

from service import budget
from service.budget import Budget
from service.errors import ComputeBudgetExceeded
from service.settings.limits import LimitsSettings


def test_steps_run_out_with_the_limit_named() -> None:
    b = Budget(max_steps=10, what="the test")
    b.spend(10)
    with pytest.raises(ComputeBudgetExceeded) as caught:
        b.spend()
    assert caught.value.details == {"limit": "steps", "max_steps": 10}


def test_the_clock_is_read_inside_long_loops() -> None:
    b = Budget(max_seconds=0.0)
    with pytest.raises(ComputeBudgetExceeded) as caught:
        for _ in range(1000):
            b.spend()
    assert caught.value.details["limit"] == "seconds"


def test_sizes_are_checked_before_building() -> None:
    b = Budget(LimitsSettings(max_value_bytes=2048, max_list_items=100))
    b.check_chars(2048)
    b.check_items(100)
    with pytest.raises(ComputeBudgetExceeded) as chars:
        b.check_chars(2049)
    with pytest.raises(ComputeBudgetExceeded) as items:
        b.check_items(101)
    assert (chars.value.details["limit"], items.value.details["limit"]) == ("bytes", "items")


def test_the_active_budget_is_per_thread_and_restored() -> None:
    small = Budget(LimitsSettings(max_value_bytes=1024))
    seen: list[Budget] = []
    with small.active():
        assert budget.current() is small
        with pytest.raises(ComputeBudgetExceeded):
            budget.check_chars(2000)
        thread = threading.Thread(target=lambda: seen.append(budget.current()))
        thread.start()
        thread.join(5)
    assert seen and seen[0] is not small
    assert budget.current() is not small
    budget.check_chars(2000)  # the process's limits again


def test_a_regular_expression_gets_the_time_left() -> None:
    pattern = regex.compile(r"(a|aa)+$")
    with Budget(max_seconds=0.2).active(), pytest.raises(ComputeBudgetExceeded) as caught:
        budget.regex_call(pattern, "search", "a" * 60 + "!")
    assert caught.value.details["limit"] == "seconds"
    assert budget.regex_call(pattern, "search", "aaa") is not None


def test_configure_sets_the_process_limits() -> None:
    before = budget.configured()
    try:
        budget.configure(LimitsSettings(max_value_bytes=1024))
        with pytest.raises(ComputeBudgetExceeded):
            budget.check_chars(1025)
    finally:
        budget.configure(before)
    assert budget.configured() is before
