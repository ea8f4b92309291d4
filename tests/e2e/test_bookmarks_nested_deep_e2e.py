"""Over real HTTP with the SDK client: list_bookmarks of groups nested 150 deep answers every
bookmark with each group's count (it walked each group's inside again, and passed each item up
through every enclosing group: 400 groups deep with 40,000 links held the event loop 94.6 s).
No time is asserted."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e

DEPTH = 150


async def test_deeply_nested_bookmark_groups_are_listed_over_http(make_vault: Callable[..., Path]) -> None:
    node: dict[str, Any] = {"type": "group", "title": f"g{DEPTH}", "items": []}
    for d in range(DEPTH - 1, -1, -1):
        node = {"type": "group", "title": f"g{d}", "items": [node, {"type": "url", "url": f"https://example.org/{d}"}]}
    root = make_vault({"A.md": "# A\n", ".obsidian/bookmarks.json": json.dumps({"items": [node]})})
    async with e2e(root) as (url, harness), Client(url) as client:
        await harness.indexed()
        answer = await client.call_tool("list_bookmarks", {"limit": 1000})
        assert not answer.is_error and answer.structured_content is not None
        items = answer.structured_content["items"]
        assert len(items) == 2 * DEPTH + 1
        groups = {i["title"]: i["items"] for i in items if i["type"] == "group"}
        assert (groups["g0"], groups[f"g{DEPTH - 1}"], groups[f"g{DEPTH}"]) == (2 * DEPTH, 2, 0)
