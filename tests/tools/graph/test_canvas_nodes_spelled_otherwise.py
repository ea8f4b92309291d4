"""A canvas file node the index reads as naming a note — its path in
another letter case, with '/' first or without '.md' — follows the note's move like a node
written as the exact path. Before, get_backlinks listed the canvas, the move's rewrite matched
the exact path only: the canvas was left naming the old path, a broken link (X3, session 78)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


def _canvas(file: str) -> str:
    node = {"id": "n", "type": "file", "file": file, "x": 0, "y": 0, "width": 10, "height": 10}
    return json.dumps({"nodes": [node], "edges": []})


SPELLINGS = {"B.canvas": "notes/a.md", "C.canvas": "Notes/A", "D.canvas": "/Notes/A.md", "E.canvas": "Notes/A.md"}


async def test_a_canvas_node_follows_the_move_of_the_note_it_names(make_vault: Callable[..., Path]) -> None:
    files = {"Notes/A.md": "# A\n", **{name: _canvas(value) for name, value in SPELLINGS.items()}}
    canvases = sorted(SPELLINGS)
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        backlinks = await vg.ok("get_backlinks", path="Notes/A.md")
        assert sorted(b["path"] for b in backlinks["items"]) == canvases
        preview = await vg.ok("move_note", path="Notes/A.md", new_path="Archive/", dry_run=True)
        assert sorted(i["path"] for i in preview["items"]) == canvases, preview
        before = vg.snapshot()
        done = await vg.confirmed("move_note", path="Notes/A.md", new_path="Archive/")
        assert done["links_rewritten"] == len(canvases), done
        assert vg.changed_since(before) == {*canvases, "Notes/A.md", "Archive/A.md"}
        for name in SPELLINGS:
            assert vg.read(name) == _canvas("Archive/A.md"), name
        await vg.settled()
        assert (await vg.ok("find_broken_links"))["items"] == []
        moved = await vg.ok("get_backlinks", path="Archive/A.md")
        assert sorted(b["path"] for b in moved["items"]) == canvases
