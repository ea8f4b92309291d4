"""A DQL query pasted with its ```dataview fence (as it sits in a note) is read without the fence,
through the dispatch chain: search_dql and validate_dql answer as for the bare query, and a
syntax error inside the block still points at its line in the pasted text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

VAULT = {"A.md": "---\ntags: [book]\n---\n# A\n", "B.md": "# B\n"}


@pytest.mark.parametrize(
    "fenced",
    ["```dataview\nLIST FROM #book\n```", "~~~ dataview\nLIST FROM #book\n~~~\n", "```dataview\nLIST FROM #book"],
)
async def test_a_fenced_dataview_block_answers_as_its_query(make_vault: Callable[..., Path], fenced: str) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        bare = await vg.ok("search_dql", query="LIST FROM #book")
        assert await vg.ok("search_dql", query=fenced) == bare
        assert (await vg.ok("validate_dql", query=fenced))["valid"] is True


async def test_an_error_inside_a_fenced_block_points_at_its_line(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        err = await vg.err("search_dql", "query_syntax_error", query="```dataview\nLIST\nWHERE (\n```")
        assert err["details"]["line"] == 3
