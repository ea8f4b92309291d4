"""The `plane` domain meta-tool (facade mode `domain`) runs the domain's tools and answers their errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started


@pytest.mark.covers("plane", "success")
@pytest.mark.covers("plane", "failure")
async def test_plane_meta_tool_runs_and_lists_and_answers_the_inner_error(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"A.md": "# A\n\n[[Nowhere]]\n"}), tool_facade={"mode": "domain"}) as vg:
        await vg.indexed()
        out = await vg.ok("plane", operation="run_consolidation", arguments={"jobs": ["audit"], "wait": True})
        assert out["result"]["status"] == "done"
        listed = await vg.ok("plane", operation="list_findings", arguments={"kind": "broken_link"})
        assert [i["detail"]["target"] for i in listed["result"]["items"]] == ["Nowhere"]
        await vg.err("plane", "note_not_found", operation="dismiss_finding", arguments={"finding_id": "f-000000000000"})
