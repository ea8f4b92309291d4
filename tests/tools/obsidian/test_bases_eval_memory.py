"""What one query_base evaluation holds together is bounded by [limits] max_eval_bytes, as
tasks_filter's, Dataview's and JSONLogic's are, not only value by value: before, a formula
`"a".repeat(14).split("").map(value.repeat(16000000))` built 14 texts of 16 MB each (+224 MB
resident in 0.76 s), and a formula or column value cached for every row had no bound but the
step and time budgets. A function's, method's or `+`'s value is held once made, a map holds its
items as it goes, formula values and column cells are kept with their row until the query ends,
and what a filter statement or a cell builds besides is given back when it is done."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

LIMITS = {"max_value_bytes": 100_000, "max_eval_bytes": 250_000}
NOTES = {f"N{i:02d}.md": f"# N{i}\n" for i in range(30)}


def _base(formula: str, *, sort: bool = False, filters: str | None = None) -> str:
    lines = ["formulas:", f"  f: '{formula}'"]
    if filters:
        lines += [f"filters: '{filters}'"]
    lines += ["views:", "  - type: table", "    name: v"]
    if sort:  # sorted by the formula, not shown: its value is kept for every row
        lines += ["    order: [file.name]", "    sort:", "      - property: formula.f", "        direction: ASC"]
    else:
        lines += ["    order: [file.name, formula.f]"]
    return "\n".join(lines) + "\n"


@pytest.mark.covers("query_base", "failure")
async def test_values_one_query_holds_count_together(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(NOTES), limits=LIMITS) as vg:
        await vg.indexed()
        for yaml in (
            _base('"a".repeat(3).split("").map(value.repeat(90000)).length'),  # 3 texts of 90,000 at once
            _base('["a", "b", "c"].map(value.repeat(90000).upper()).length'),
            _base("file.name.repeat(15000)", sort=True),  # 90,000 kept for each of 30 rows
        ):
            err = await vg.err("query_base", "compute_budget_exceeded", yaml=yaml)
            assert err["details"]["limit"] == "held" and err["details"]["max_eval_bytes"] == 250_000, yaml
        for yaml in (  # each row's temporaries given back: 30 rows x 90,000, one at a time
            _base("file.name.repeat(15000).length", sort=True, filters="file.name.repeat(15000).length > 0"),
            _base('"a".repeat(100).split("").map(value.repeat(50000).length).length'),
            _base('"a".repeat(90).split("").reduce(acc + value.repeat(1000), "").length'),
        ):
            out = await vg.ok("query_base", yaml=yaml, limit=50)
            assert out["total"] == 30, yaml
