"""The `memory` domain meta-tool (facade mode `domain`) runs the domain's tools and answers their errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started


@pytest.mark.covers("memory", "success")
@pytest.mark.covers("memory", "failure")
async def test_memory_meta_tool_creates_and_opens_entities_and_answers_the_inner_error(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault({"A.md": "# A\n"}), tool_facade={"mode": "domain"}) as vg:
        entity = {"name": "Alice", "entityType": "person", "observations": ["Works at Acme"]}
        out = await vg.ok("memory", operation="create_entities", arguments={"entities": [entity]})
        assert out["tool"] == "create_entities" and out["result"]["created"][0]["name"] == "Alice"
        opened = await vg.ok("memory", operation="open_nodes", arguments={"names": ["Alice"]})
        assert opened["result"]["entities"][0]["observations"][0]["text"] == "Works at Acme"
        await vg.err(
            "memory",
            "note_not_found",
            operation="add_observations",
            arguments={"observations": [{"entityName": "Bob", "contents": ["x"]}]},
        )
