"""A bookmarks.json found on one line stays on one line when a tool edits it (found by A1,
session 87, attacking a real server): every edit wrote it with 2-space indentation, and
indentation costs each line its depth, so a one-line file of 2.2 MB nested 400 groups deep was
written as 166 MB. A file Obsidian wrote (indented) keeps its layout. Sizes compared, nothing
timed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

BM = ".obsidian/bookmarks.json"
DEPTH = 60


def _chain() -> dict[str, Any]:
    node: dict[str, Any] = {"type": "group", "title": "inner", "items": [{"type": "file", "path": "Plan.md"}]}
    for d in range(DEPTH):
        node = {"type": "group", "title": f"g{d}", "items": [node]}
    return {"items": [node]}


async def test_an_edit_keeps_a_one_line_bookmarks_file_on_one_line(make_vault: Callable[..., Path]) -> None:
    before = json.dumps(_chain())
    root = make_vault({"Plan.md": "# Plan\n", "Goals.md": "# Goals\n", BM: before})
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("add_bookmark", type="file", path="Goals.md", group="inner")
        after = (root / BM).read_text(encoding="utf-8")
        assert "\n" not in after.strip() and len(after) <= len(before) + 100, (len(before), len(after))
        await vg.ok("rename_note", path="Plan", new_path="Plan2")  # a move rewrites it too
        moved = (root / BM).read_text(encoding="utf-8")
        assert "\n" not in moved.strip() and '"Plan2.md"' in moved
    indented = json.dumps(_chain(), indent=2)
    root2 = make_vault({"Plan.md": "# Plan\n", "Goals.md": "# Goals\n", BM: indented})
    async with started(root2) as vg:
        await vg.indexed()
        await vg.ok("add_bookmark", type="file", path="Goals.md")
        assert (root2 / BM).read_text(encoding="utf-8").startswith('{\n  "items": [\n')
