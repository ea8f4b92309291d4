"""The `obsidian` domain meta-tool (facade mode `domain`) runs the domain's tools."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started


@pytest.mark.covers("obsidian", "success")
@pytest.mark.covers("obsidian", "failure")
async def test_obsidian_meta_tool_runs_and_fails_like_the_inner_tool(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "a\n"}), tool_facade={"mode": "domain"}) as vg:
        out = await vg.ok("obsidian", operation="list_bookmarks", arguments={})
        empty = {"items": [], "total": 0, "etag": None, "next_cursor": None}
        assert out["tool"] == "list_bookmarks" and out["result"] == empty
        await vg.err("obsidian", "note_not_found", operation="read_canvas", arguments={"path": "Nope"})
        err = await vg.err("obsidian", "validation_error", operation="read_note", arguments={"path": "A"})
        assert err["details"]["issues"][0]["field"] == "operation"
