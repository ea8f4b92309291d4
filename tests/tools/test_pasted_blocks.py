"""A query pasted with its code fence, as it sits in a note (```tasks, ```base; ```dataview in
tests/tools/dataview/test_dql_fence.py), is read without the fence through the dispatch chain:
the answer is the bare query's, and an error still points at its line in the pasted text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.tools.obsidian.bases_vault import BASES_VAULT, LIBRARY_BASE
from tests.tools.tasks.test_tasks_filter import FILES, TODAY


async def test_a_fenced_tasks_block_answers_as_its_query(make_vault: Callable[..., Path]) -> None:
    query = "not done\ndue before tomorrow\nsort by due"
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        bare = await vg.ok("tasks_filter", query=query, today=TODAY)
        for fenced in (f"```tasks\n{query}\n```", f"~~~tasks\n{query}\n~~~\n", f"```tasks\n{query}"):
            assert await vg.ok("tasks_filter", query=fenced, today=TODAY) == bare, fenced
        err = await vg.err(
            "tasks_filter", "query_syntax_error", query="```tasks\nnot done\ndue befor\n```", today=TODAY
        )
        assert err["details"]["line"] == 3, err


async def test_a_fenced_base_block_answers_as_its_yaml(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(BASES_VAULT)) as vg:
        await vg.indexed()
        bare = await vg.ok("query_base", yaml=LIBRARY_BASE)
        assert bare["rows"]
        for fenced in (f"```base\n{LIBRARY_BASE}```", f"~~~base\n{LIBRARY_BASE}"):
            assert (await vg.ok("query_base", yaml=fenced))["rows"] == bare["rows"], fenced
