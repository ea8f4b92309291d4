"""Over real HTTP with the SDK client: a rename keeps a one-line workspace.json on one line (it
was rewritten indented with 2 spaces: a compact file nested 450 deep grew from 6.4 MB to 626 MB)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e

DEPTH = 40


async def test_a_rename_keeps_a_one_line_workspace_on_one_line(make_vault: Callable[..., Path]) -> None:
    node: dict[str, Any] = {"id": "a", "type": "leaf", "state": {"type": "markdown", "state": {"file": "Plan.md"}}}
    for d in range(DEPTH):
        node = {"id": f"s{d}", "type": "split", "children": [node]}
    before = json.dumps({"main": node, "lastOpenFiles": ["Plan.md"]})
    root = make_vault({"Plan.md": "# Plan\n", ".obsidian/workspace.json": before})
    async with e2e(root) as (url, harness), Client(url) as client:
        await harness.indexed()
        answer = await client.call_tool("rename_note", {"path": "Plan", "new_path": "Goals"})
        assert not answer.is_error and answer.structured_content is not None
        assert answer.structured_content["settings_updated"] == [".obsidian/workspace.json"]
    after = (root / ".obsidian/workspace.json").read_text(encoding="utf-8")
    assert "\n" not in after.strip() and len(after) <= len(before) + 10
    assert json.loads(after)["lastOpenFiles"] == ["Goals.md"]
