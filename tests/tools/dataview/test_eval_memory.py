"""What one Dataview evaluation holds side by side is bounded as a whole by [limits]
max_eval_bytes, as tasks_filter's is (test_expression_memory), not only value by value: before,
`map(split(padleft("", N, "a"), ""), (x) => padleft(x, 16000000, "b"))` built N + 2 texts of
16 MB each (16 of them: 256 MB more resident in 0.35 s; the 10 s budget allowed ~16 GB), and a
SORT, GROUP BY or FLATTEN kept one near-limit value per row across every row. Past the sum:
compute_budget_exceeded with details.limit 'held'. What a row's evaluation builds is given back
when it returns, so a query over many rows whose values are each small enough is not refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

LIMITS = {"max_value_bytes": 100_000, "max_eval_bytes": 250_000}
NOTES = {f"N{i:02d}.md": f"# N{i}\n" for i in range(30)}


@pytest.mark.covers("search_dql", "failure")
async def test_a_map_of_near_limit_texts_is_held_as_a_whole(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"X.md": "# X\n"})) as vg:  # the default limits: 16 MB a text, 64 MiB held
        await vg.indexed()
        # split(text, "") is one piece a character (String.split; session 78: it had an empty piece
        # at each end, so 4 characters made 6 texts here and 1 made 3)
        query = 'TABLE length(map(split(padleft("", 5, "a"), ""), (x) => padleft(x, 16000000, "b"))) AS n FROM "X"'
        err = await vg.err("search_dql", "compute_budget_exceeded", query=query)
        assert err["details"]["limit"] == "held" and err["details"]["max_eval_bytes"] == 64 * 1024 * 1024
        fits = query.replace('"", 5,', '"", 3,')  # 3 texts of 16 MB: 48 MB held
        out = await vg.ok("search_dql", query=fits)
        assert out["rows"][0]["cells"][0]["value"] == 3


async def test_values_kept_across_rows_count_together(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(NOTES), limits=LIMITS) as vg:
        await vg.indexed()
        for query in (
            'TABLE length(map(split(padleft("", 3, "a"), ""), (x) => padleft(x, 90000, "b"))) AS n',
            'TABLE length(list(upper(padleft("", 90000)), upper(padleft("", 90000)), padleft("", 90000))) AS n',
            'TABLE length(padleft("", 90000) + "a") + length(padleft("", 90000) + "b") + length("c" * 90000) AS n',
            'TABLE file.name SORT padleft(file.name, 90000, "x")',  # a sort key per row, kept
            'TABLE WITHOUT ID length(rows) AS n GROUP BY padleft(file.name, 90000, "x")',
            'TABLE length(big) FLATTEN list(padleft(file.name, 90000, "x")) AS big',
        ):
            err = await vg.err("search_dql", "compute_budget_exceeded", query=query)
            assert err["details"]["limit"] == "held" and err["details"]["max_eval_bytes"] == 250_000, query
        # Each row's values are given back when it is done: 30 rows x 90,000 characters, one at a time.
        for query in (
            'TABLE length(padleft(file.name, 90000, "x")) AS n WHERE length(padleft(file.name, 90000)) > 0',
            'TABLE length(map(split(padleft("", 100, "a"), ""), (x) => length(padleft(x, 50000)))) AS n',
            'TABLE file.name SORT length(padleft(file.name, 90000, "x")) DESC',
        ):
            out = await vg.ok("search_dql", query=query, limit=50)
            assert out["total"] == 30, query


async def test_a_list_nested_thousands_deep_is_measured_without_recursion(make_vault: Callable[..., Path]) -> None:
    """Measuring what a function built walks it without recursion, each list and object once: a
    note's list items nested 1,500 deep (file.lists, each item also its parent's child) ended
    in an internal error (RecursionError) at 89d89a9 when filter() gave them back."""
    deep = "".join(" " * i + "- item\n" for i in range(1500))
    async with started(make_vault({"D.md": "# D\n\n" + deep})) as vg:
        await vg.indexed()
        out = await vg.ok("search_dql", query='TABLE length(filter(file.lists, (x) => true)) AS n FROM "D"')
        assert out["rows"][0]["cells"][0]["value"] > 0
