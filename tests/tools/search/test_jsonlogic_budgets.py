"""query_jsonlogic under hostile rules, through the dispatch chain: a glob runs on the `regex`
engine (under the rule's time budget), a brace bomb and deep nesting are refused, and a rule that
doubles a string on every step stops at the byte budget."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

DEEP = "/".join(["a"] * 40) + "/b.md"


@pytest.fixture
async def vg(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    files: dict[str, str | bytes] = {DEEP: "deep\n", "Projects/Plan.md": "plan\n"}
    async with started(make_vault(files), limits={"max_eval_seconds": 0.5, "max_value_bytes": 1_000_000}) as h:
        await h.indexed()
        yield h


async def test_a_glob_that_backtracks_for_minutes_on_re_answers_at_once(vg: Harness) -> None:
    pattern = "**/a/" * 12 + "c"  # wcmatch's own matcher (on `re`) holds a core for many minutes here
    started_at = time.process_time()  # CPU, not the wall clock: a loaded machine stretches that
    none = await vg.ok("query_jsonlogic", logic={"glob": [{"var": "path"}, pattern]})
    assert none["items"] == [] and time.process_time() - started_at < 5
    found = await vg.ok("query_jsonlogic", logic={"glob": [{"var": "path"}, "projects/**/*.md"]})
    assert [i["path"] for i in found["items"]] == ["Projects/Plan.md"]
    deep = await vg.ok("query_jsonlogic", logic={"glob": [{"var": "path"}, "**/a/a/b.md"]})
    assert [i["path"] for i in deep["items"]] == [DEEP]


async def test_a_brace_bomb_and_deep_nesting_are_syntax_errors(vg: Harness) -> None:
    await vg.err("query_jsonlogic", "query_syntax_error", logic={"glob": [{"var": "path"}, "{a,b}" * 20]})
    deep: Any = True
    for _ in range(100):
        deep = {"!!": [deep]}
    await vg.err("query_jsonlogic", "validation_error", logic=deep)  # refused with the arguments


async def test_a_string_doubled_on_every_step_stops_at_the_byte_budget(vg: Harness) -> None:
    double = {"cat": [{"var": "accumulator"}, {"var": "accumulator"}]}
    logic = {"reduce": [{"merge": list(range(64))}, double, "xx"]}
    err = await vg.err("query_jsonlogic", "compute_budget_exceeded", logic=logic)
    assert err["details"]["limit"] == "bytes"


async def test_numbers_past_a_double_are_null_not_errors(vg: Harness) -> None:
    big = 10**400
    for logic in ({"+": [big, 1]}, {">": [big, 1]}, {"substr": ["abc", big]}):
        out = await vg.ok("query_jsonlogic", logic=logic)
        assert out["items"] == [], logic
