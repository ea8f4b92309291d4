"""A compact workspace.json (one line, as a tool or a sync may leave it) stays compact when a
move rewrites it (found by A1, session 87, attacking a real server): the rewrite indented any
file without indentation with 2 spaces, so a one-line file nested 450 deep (6.4 MB) was
rewritten as 626 MB in 27 s on a move of a file it named. Sizes compared, nothing timed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

WS = ".obsidian/workspace.json"
DEPTH = 60


def _nested() -> dict[str, Any]:
    node: dict[str, Any] = {"id": "a", "type": "leaf", "state": {"type": "markdown", "state": {"file": "Plan.md"}}}
    for d in range(DEPTH):
        leaves = [
            {"id": f"l{d}-{i}", "type": "leaf", "state": {"type": "markdown", "state": {"file": f"N{i}.md"}}}
            for i in range(5)
        ]
        node = {"id": f"s{d}", "type": "split", "children": [node, *leaves]}
    return {"main": node, "active": "a", "lastOpenFiles": ["Plan.md", "N1.md"]}


async def test_a_one_line_workspace_stays_on_one_line_after_a_move(make_vault: Callable[..., Path]) -> None:
    before = json.dumps(_nested())
    root = make_vault({"Plan.md": "# Plan\n", ".obsidian/workspace.json": before})
    async with started(root) as vg:
        await vg.indexed()
        await vg.confirmed("move_note", path="Plan.md", new_path="Archive/Plan.md")
    after = (root / WS).read_text(encoding="utf-8")
    assert "\n" not in after.strip()
    assert len(after) <= len(before) + 100, (len(before), len(after))  # 2-space indented: ~20x before
    data = json.loads(after)
    assert data["lastOpenFiles"] == ["Archive/Plan.md", "N1.md"]
    leaf = data["main"]
    for _ in range(DEPTH):
        leaf = leaf["children"][0]
    assert leaf["state"]["state"]["file"] == "Archive/Plan.md"
