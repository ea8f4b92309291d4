"""query_base under hostile .base files, through the dispatch chain: a method that would build a
string or list past `[limits]` refuses before building it, unique() is linear, a catastrophic
regular expression stops at the query's time budget, and nesting past the depth budget (formula
chains, filters, expressions) is a `bases_syntax_error`, never an internal error."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started

VAULT: dict[str, str | bytes] = {
    "Numbers.md": "---\nnums: [" + ", ".join(str(i) for i in range(20_000)) + "]\n---\n",
    "Other.md": "---\nnums: [1, 1, 2]\n---\n",
}


@pytest.fixture
async def vg(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(
        make_vault(VAULT), search={"bases_max_seconds": 5}, limits={"max_value_bytes": 1_000_000}
    ) as harness:
        await harness.indexed()
        yield harness


VIEW = "views:\n  - {name: v, order: [formula.x], filters: 'file.name == \"Numbers.md\"'}\n"


def _base(formula: str) -> str:
    return f"formulas:\n  x: '{formula}'\n" + VIEW


async def test_string_and_list_builders_refuse_past_the_budget_before_building(
    make_vault: Callable[..., Path],
) -> None:
    # The byte budget is under test: time enough that a slow machine (and tracemalloc) never runs
    # out of seconds first (a regex replace is timed in attempts: service.budget.Budget.timed).
    search = {"bases_max_seconds": 120, "regex_max_budget_ms": 60_000}  # (a regex replace's own budget too)
    roomy = started(make_vault(VAULT), search=search, limits={"max_value_bytes": 1_000_000})
    async with roomy as vg:
        await vg.indexed()
        await _builders_refuse(vg)


async def _builders_refuse(vg: Harness) -> None:
    tracemalloc.start()
    try:
        for formula, limit in (
            ('"x".repeat(1800000000)', "bytes"),
            ('"xy".repeat(400000) + "xy".repeat(400000)', "bytes"),
            ('"x".repeat(600000).replace("x", "xx")', "bytes"),
            ('"x".repeat(600000).replace(/x/g, "xx")', "bytes"),
            ('[ "x".repeat(600000), "x".repeat(600000) ].join("")', "bytes"),
        ):
            err = await vg.err("query_base", "compute_budget_exceeded", yaml=_base(formula))
            assert err["details"]["limit"] == limit, formula
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024 * 1024
    out = await vg.ok("query_base", yaml=_base('"ab".repeat(3)'))
    assert out["rows"][0]["values"]["formula.x"]["value"] == "ababab"


async def test_unique_over_twenty_thousand_values_answers_within_the_budget(vg: Harness) -> None:
    started_at = time.process_time()  # CPU, not the wall clock: a loaded machine stretches that
    out = await vg.ok("query_base", yaml=_base("nums.unique().length"))
    assert out["rows"][0]["values"]["formula.x"]["value"] == 20_000
    assert time.process_time() - started_at < 5  # the query's own budget; quadratic unique() took minutes
    mixed = await vg.ok("query_base", yaml=_base('[1, 1.0, "1", true, null, null, [1], [1], "a"].unique().length'))
    assert mixed["rows"][0]["values"]["formula.x"]["value"] == 6


async def test_a_catastrophic_regular_expression_stops_at_the_time_budget(vg: Harness) -> None:
    err = await vg.err("query_base", "compute_budget_exceeded", yaml=_base('/(a|aa)+$/.matches("' + "a" * 60 + '!")'))
    assert err["details"]["limit"] == "seconds"


async def test_a_formula_chain_a_thousand_deep_is_a_syntax_error(vg: Harness) -> None:
    chain = "formulas:\n  f0: 1\n" + "".join(f"  f{i}: formula.f{i - 1} + 1\n" for i in range(1, 1000))
    err = await vg.err(
        "query_base", "bases_syntax_error", yaml=chain + "views:\n  - {name: v, order: [formula.f999]}\n"
    )
    assert err["details"]["chain_length"] == 1000
    short = "formulas:\n  f0: 1\n" + "".join(f"  f{i}: formula.f{i - 1} + 1\n" for i in range(1, 20))
    out = await vg.ok("query_base", yaml=short + "views:\n  - {name: v, order: [formula.f19]}\n")
    assert out["rows"][0]["values"]["formula.f19"]["value"] == 20


async def test_filters_nested_five_hundred_deep_are_a_syntax_error(vg: Harness) -> None:
    nested = "{and: [" * 500 + 'file.name == "Numbers.md"' + "]}" * 500
    err = await vg.err("query_base", "bases_syntax_error", yaml=f"filters: {nested}\nviews:\n  - {{name: v}}\n")
    assert err["details"]["at"] == "(yaml)"
    block = "filters:\n" + "".join("  " * i + "  and:\n" + "  " * i + "    -\n" for i in range(300))
    await vg.err("query_base", "bases_syntax_error", yaml=block + "views:\n  - {name: v}\n")


async def test_deep_expressions_are_a_syntax_error(vg: Harness) -> None:
    for formula in ("(" * 600 + "1" + ")" * 600, "1" + " + 1" * 3000, "!" * 3000 + "true", "[" * 600 + "]" * 600):
        await vg.err("query_base", "bases_syntax_error", yaml=_base(formula))


async def test_a_quadratic_filter_stops_at_the_budget(vg: Harness) -> None:
    started_at = time.process_time()  # CPU, not the wall clock: a loaded machine stretches that
    formula = "nums.filter(nums.contains(value)).length"  # 20,000 scans of 20,000 values
    err = await vg.err("query_base", "compute_budget_exceeded", yaml=_base(formula))
    assert err["details"]["limit"] in ("steps", "seconds")
    assert time.process_time() - started_at < 10


async def test_an_infinite_count_is_a_cell_error(vg: Harness) -> None:
    for formula in ('"x".repeat(1e300 * 1e300)', '"abc".slice(1e300 * 1e300)', "(1e300 * 1e300).round()"):
        out = await vg.ok("query_base", yaml=_base(formula))
        assert out["rows"][0]["values"]["formula.x"]["value"] is None, formula
        assert out["errors"] and out["errors"][0]["at"] == "formula.x"
