"""The graph and link tools title every file by the one rule, Obsidian's `file.basename`
(docs/tools-guide.md "Titles"): an image reached by a link is 'photo', not 'photo.png' or
'img/photo.png', and a canvas is 'Board', not 'Board.canvas' — in get_outlinks, graph_neighbors,
graphrag_query, the notes move_note and rewrite_links change, and the file move_note moves (H6 #1, #2,
#6, #7, #10). These tools titled a file the index gives no title themselves (the name less '.md',
or the whole path)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.semantic.helpers import semantic
from tests.tools.obsidian.test_attachments import png

BOARD = {
    "nodes": [{"id": "f1", "type": "file", "file": "Launch.md", "x": 0, "y": 0, "width": 10, "height": 10}],
    "edges": [],
}
FILES: dict[str, str | bytes] = {
    "Launch.md": "# Launch\n\nThe zeppelin launch.\n\n![[photo.png]] and ![[archive.tar.gz]]\n",
    "img/photo.png": png(4, 4),
    "img/archive.tar.gz": b"\x1f\x8b\x08\x00not really",
    "Maps/Board.canvas": json.dumps(BOARD),
    "Index.md": "The map: [[Board.canvas]]\n",
    "Side.md": "Away from the map.\n",
}
WANTED = {"img/photo.png": "photo", "img/archive.tar.gz": "archive.tar", "Maps/Board.canvas": "Board"}


def titled(items: list[dict[str, Any]]) -> dict[str, str]:
    return {i["path"]: i["title"] for i in items if i["path"] in WANTED}


@pytest.mark.covers("get_outlinks", "success")
@pytest.mark.covers("graph_neighbors", "success")
@pytest.mark.covers("graphrag_query", "success")
@pytest.mark.covers("move_note", "success")
@pytest.mark.covers("rewrite_links", "success")
async def test_graph_and_link_tools_title_files_by_their_basename(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(FILES)) as vg:  # graphrag_query needs embeddings
        listed = titled((await vg.ok("list_attachments"))["items"])
        assert listed == WANTED  # what the listings already said
        out = await vg.ok("get_outlinks", path="Launch")
        assert titled(out["items"]) == {"img/photo.png": "photo", "img/archive.tar.gz": "archive.tar"}
        near = await vg.ok("graph_neighbors", path="Launch")
        assert titled(near["items"]) == WANTED
        far = await vg.ok("graph_neighbors", path="Index", direction="out", depth=3)  # via the canvas
        assert titled(far["items"]) == WANTED
        rag = await vg.ok("graphrag_query", query="zeppelin launch", hops=1, limit=20)
        assert titled(rag["items"]) == WANTED

        # The notes a move or a repoint would change (dry run), then those it changed.
        planned = await vg.ok("move_note", path="Launch.md", new_path="Launch 2.md", dry_run=True)
        assert titled(planned["items"]) == {"Maps/Board.canvas": "Board"}
        repointed = await vg.ok("rewrite_links", old_target="Launch", new_target="Side", dry_run=True)
        assert titled(repointed["items"]) == {"Maps/Board.canvas": "Board"}
        moved = await vg.ok("move_note", path="Launch.md", new_path="Launch 2.md", dry_run=False)
        assert titled(moved["items"]) == {"Maps/Board.canvas": "Board"}

        # The file a move moves: a canvas or an image is titled by its new basename too.
        board = await vg.ok("move_note", path="Maps/Board.canvas", new_path="Maps/Board two.canvas", dry_run=True)
        assert (board["path"], board["title"]) == ("Maps/Board two.canvas", "Board two")
        image = await vg.ok("move_note", path="img/photo.png", new_path="img/picture.png", dry_run=False)
        assert (image["path"], image["title"]) == ("img/picture.png", "picture")
