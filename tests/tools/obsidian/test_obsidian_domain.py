"""The `obsidian` domain meta-tool (tool_facade mode `domain`) runs query_base and answers its errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started
from tests.tools.obsidian.bases_vault import BASES_VAULT


@pytest.mark.covers("obsidian", "success")
@pytest.mark.covers("obsidian", "failure")
async def test_obsidian_meta_tool_runs_query_base(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(BASES_VAULT), tool_facade={"mode": "domain"}) as vg:
        await vg.indexed()
        out = await vg.ok("obsidian", operation="query_base", arguments={"path": "Library.base", "view": "Old"})
        assert [row["path"] for row in out["result"]["rows"]] == ["Books/Emma.md"]
        await vg.err("obsidian", "bases_syntax_error", operation="query_base", arguments={"yaml": "filters: '('"})
        await vg.err("obsidian", "validation_error", operation="read_note", arguments={"path": "Books/Dune"})
