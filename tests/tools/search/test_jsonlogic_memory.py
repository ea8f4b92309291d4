"""What one note's JSONLogic evaluation holds together is bounded by [limits] max_eval_bytes, as
tasks_filter's and Dataview's are, not only value by value: before, a `map` of `cat`s kept every
text it built (three nested maps of 99-fold `cat`s over 100 one-letter texts: 100 texts of ~1 MB,
+98 MB resident in 0.9 s; with longer texts, gigabytes within the time budget). A `map` holds its
items as it goes, a `reduce` only its accumulator, a `filter` none of what its test builds, and a
note gives back what it built when it is done."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

LIMITS = {"max_value_bytes": 100_000, "max_eval_bytes": 250_000}
CAT99 = {"cat": [{"var": ""}] * 99}  # an item 99 times over: 99,000 characters of a 1,000-character item


def _texts(n: int) -> list[str]:
    return [chr(97 + i % 26) * 1000 for i in range(n)]


@pytest.mark.covers("query_jsonlogic", "failure")
async def test_the_values_one_note_builds_count_together(make_vault: Callable[..., Path]) -> None:
    notes = {f"N{i}.md": f"# N{i}\n" for i in range(20)}
    async with started(make_vault(notes), limits=LIMITS) as vg:
        await vg.indexed()
        held: list[Any] = [
            {"map": [_texts(30), CAT99]},  # 30 texts of 99,000 side by side
            {"merge": [{"map": [_texts(2), CAT99]}, {"map": [_texts(2), CAT99]}, {"map": [_texts(2), CAT99]}]},
            {"map": [_texts(30), {"lower": CAT99}]},
        ]
        for logic in held:
            err = await vg.err("query_jsonlogic", "compute_budget_exceeded", logic=logic)
            assert err["details"]["limit"] == "held" and err["details"]["max_eval_bytes"] == 250_000, logic
        given_back: list[Any] = [
            {"map": [_texts(2), CAT99]},  # 198,000 for each of the 20 notes, one note at a time
            {"reduce": [_texts(90), {"cat": [{"var": "accumulator"}, {"var": "current"}]}, ""]},  # 90,000 at the end
            {"filter": [_texts(30), CAT99]},  # the test's texts are dropped
            {"some": [_texts(30), {"substr": [CAT99, 0, 5]}]},
        ]
        for logic in given_back:
            out = await vg.ok("query_jsonlogic", logic=logic, limit=50)
            assert out["total"] == 20, logic
