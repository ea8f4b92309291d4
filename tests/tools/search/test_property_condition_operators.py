"""search_notes properties-mode conditions take the comparisons search_properties takes (H6 #3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

RANKS = {f"N{i}.md": f"---\nrank: {i}\n---\n# N{i}\n" for i in range(3)}


def paths(out: dict[str, Any]) -> list[str]:
    return sorted(item["path"] for item in out["items"])


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("rank>=1", ["N1.md", "N2.md"]),
        ("rank >= 1", ["N1.md", "N2.md"]),
        ("rank<=1", ["N0.md", "N1.md"]),
        ("rank>1", ["N2.md"]),
        ("rank<1", ["N0.md"]),
        ("rank==1", ["N1.md"]),
    ],
)
async def test_comparison_conditions_match_as_search_properties_does(
    make_vault: Callable[..., Path], query: str, expected: list[str]
) -> None:
    async with started(make_vault(RANKS)) as vg:
        await vg.indexed()
        out = await vg.ok("search_notes", mode="properties", query=query, limit=10)
        assert paths(out) == expected, (query, out)
        op = query.replace(" ", "").removeprefix("rank").removesuffix("1")
        same = await vg.ok("search_properties", filters=[{"key": "rank", "op": op, "value": 1}])
        assert sorted(i["path"] for i in same["items"]) == expected


async def test_a_condition_whose_value_starts_with_an_operator_is_refused(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(RANKS)) as vg:
        await vg.indexed()
        for query in ("rank=>1", "rank<>1", "rank>==1", "rank===1"):
            error = await vg.err("search_notes", "validation_error", mode="properties", query=query)
            assert "cannot read the property condition" in error["message"], error
        quoted = await vg.ok("search_notes", mode="properties", query='rank="=1"')
        assert quoted["total"] == 0
