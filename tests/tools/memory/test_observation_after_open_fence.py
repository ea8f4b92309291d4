"""A new observation never goes into a code block or comment its note leaves open (R7 s77 review of
06b0d89b): after `- plays chess` and a fence that never closes, the new item was written after
the code line, inside the block, where Obsidian and the parser read it as code: add_observations
answered ok and open_nodes did not list it. It now goes after the last item, before the block;
the block's lines are kept as they were. Through the dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

FM = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n"
BODIES = ["- plays chess\n```\ncode line\n", "```\n- looks like an item\n", "- plays chess\n%%\n- a hidden fact\n"]


@pytest.mark.parametrize("body", BODIES)
async def test_an_added_observation_is_one_open_nodes_lists(make_vault: Callable[..., Path], body: str) -> None:
    async with started(make_vault({"Memory/Ann.md": FM + body})) as vg:
        before = [o["text"] for o in (await vg.ok("open_nodes", names=["Ann"]))["entities"][0]["observations"]]
        await vg.ok("add_observations", observations=[{"entityName": "Ann", "contents": ["brand new fact"]}])
        nodes = await vg.ok("open_nodes", names=["Ann"])
        text = vg.read("Memory/Ann.md")
        assert [o["text"] for o in nodes["entities"][0]["observations"]] == [*before, "brand new fact"], text
        assert text.endswith(body.split("\n", 1)[1] if body.startswith("- ") else body), text  # the block kept
