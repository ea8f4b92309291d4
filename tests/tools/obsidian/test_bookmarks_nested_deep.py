"""list_bookmarks of groups nested deep is one pass over bookmarks.json (found by A1, session 87,
attacking a real server): each group's count of the bookmarks inside it walked its whole inside
again, and the walk passed each item up through every enclosing group, so a 2.2 MB file of 400
nested groups (40,000 links) held the event loop for 94.6 s. Counted, not timed: how many items
the call hashes into ids (each visit of an item computes its id)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

DEPTH = 40
PER_GROUP = 10


def _chain() -> dict[str, Any]:
    node: dict[str, Any] = {"type": "group", "title": f"g{DEPTH}", "items": []}
    for d in range(DEPTH - 1, -1, -1):
        links = [{"type": "url", "url": f"https://example.org/{d}/{i}", "title": "u"} for i in range(PER_GROUP)]
        node = {"type": "group", "title": f"g{d}", "items": [node, *links]}
    return {"items": [node, {"type": "file", "path": "A.md"}]}


async def test_nested_groups_are_listed_in_one_pass(make_vault: Callable[..., Path], key_hashes: list[int]) -> None:
    data = _chain()
    root = make_vault({"A.md": "# A\n", ".obsidian/bookmarks.json": json.dumps(data)})
    hashed = key_hashes
    total = DEPTH * (PER_GROUP + 1) + 1 + 1  # groups g0..g40, their links, the file
    async with started(root) as vg:
        out = await vg.ok("list_bookmarks", limit=1000)  # one page
        items = out["items"]
        assert len(items) == total
        by_title = {i["title"]: i for i in items if i["type"] == "group"}
        assert by_title["g0"]["items"] == total - 2  # everything but itself and the file
        assert by_title[f"g{DEPTH - 1}"]["items"] == 1 + PER_GROUP
        assert by_title[f"g{DEPTH}"]["items"] == 0
        assert [i["depth"] for i in items if i["type"] == "group"] == list(range(DEPTH + 1))
        assert hashed[0] <= total, hashed[0]  # each group's inside hashed again before: 9,462
        hashed[0] = 0
        inner = await vg.ok("list_bookmarks", group=f"g{DEPTH - 2}")
        assert len(inner["items"]) == 2 + 2 * PER_GROUP  # g39, g40 and both groups' links
        assert inner["items"][0]["items"] == 1 + PER_GROUP
        assert hashed[0] <= 2 * total, hashed[0]  # the walk and the group's lookup
