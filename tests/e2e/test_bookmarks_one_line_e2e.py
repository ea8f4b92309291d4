"""Over real HTTP with the SDK client: add_bookmark keeps a one-line bookmarks.json on one line
(it was written with 2-space indentation: a one-line file of 2.2 MB nested 400 groups deep
became 166 MB)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e


async def test_add_bookmark_keeps_a_one_line_file_on_one_line(make_vault: Callable[..., Path]) -> None:
    node: dict[str, Any] = {"type": "group", "title": "inner", "items": []}
    for d in range(40):
        node = {"type": "group", "title": f"g{d}", "items": [node]}
    before = json.dumps({"items": [node]})
    root = make_vault({"Plan.md": "# Plan\n", ".obsidian/bookmarks.json": before})
    async with e2e(root) as (url, harness), Client(url) as client:
        await harness.indexed()
        answer = await client.call_tool("add_bookmark", {"type": "file", "path": "Plan.md", "group": "inner"})
        assert not answer.is_error, answer.structured_content
    after = (root / ".obsidian/bookmarks.json").read_text(encoding="utf-8")
    assert "\n" not in after.strip() and len(after) <= len(before) + 100
