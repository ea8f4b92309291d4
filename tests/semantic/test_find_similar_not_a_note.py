"""find_similar of a file that is not a note answers what helps, on any server. It answered
mode_unavailable ("use search_text") for every path while embeddings were off, before looking at
the path; with embeddings on, a canvas was "an attachment" with a hint about Markdown notes. The
path is now looked up first, as search_notes looks up its folder before its semantic mode: a
canvas is not_a_note with details.kind 'canvas' and a hint naming graph_neighbors / get_outlinks
(which take it), a base names query_base, an image get_backlinks; a note's name no note has is
note_not_found with suggestions; a note that exists still gets mode_unavailable. A canvas named
as an embed names it ('Pets.canvas', as graph_neighbors takes it) was "no note at
'Pets.canvas.md'"; it is the canvas's not_a_note too, and a canvas name no file has is
note_not_found of that file (kind canvas, the closest canvases)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, started
from tests.semantic.helpers import VAULT, semantic

BOARD = "Boards/Pets.canvas"
CANVAS = json.dumps(
    {
        "nodes": [
            {"id": "t", "type": "text", "text": "A kitten needs toys", "x": 0, "y": 0, "width": 9, "height": 9},
            {"id": "f", "type": "file", "file": "Pets/Cats.md", "x": 0, "y": 20, "width": 9, "height": 9},
        ],
        "edges": [],
    }
)
FILES: dict[str, str | bytes] = {
    **VAULT,
    BOARD: CANVAS,
    "Books.base": "views:\n  - type: table\n    name: All\n",
    "cat.png": b"\x89PNG\r\n\x1a\n" + b"0" * 16,
}


async def _not_notes(h: Harness) -> None:
    board = await h.err("find_similar", "not_a_note", path=BOARD)
    assert board["details"]["kind"] == "canvas" and board["details"]["path"] == BOARD, board
    assert "graph_neighbors" in board["hint"] and "get_outlinks" in board["hint"], board
    neighbours = await h.ok("graph_neighbors", path=BOARD)  # the hint's tool takes the canvas
    for name in ("Pets.canvas", "[[Pets.canvas]]"):  # named as an embed names it, as the graph tools take it
        by_name = await h.err("find_similar", "not_a_note", path=name)
        assert by_name["details"] == {"path": BOARD, "kind": "canvas", "read_with": "read_canvas"}, by_name
    nope = await h.err("find_similar", "note_not_found", path="Nope.canvas")  # not 'Nope.canvas.md'
    assert nope["details"]["kind"] == "canvas" and nope["details"]["suggestions"] == [BOARD], nope
    assert "Pets/Cats.md" in {n["path"] for n in neighbours["items"]}, neighbours
    base = await h.err("find_similar", "not_a_note", path="Books.base")
    assert base["details"]["kind"] == "base" and "query_base" in base["hint"], base
    image = await h.err("find_similar", "not_a_note", path="cat.png")
    assert image["details"]["kind"] == "image" and "get_backlinks" in image["hint"], image  # as the note tools say
    assert image["details"]["read_with"] == "read_attachment", image
    folder = await h.err("find_similar", "not_a_note", path="Pets")
    assert folder["details"]["kind"] == "folder", folder


async def test_find_similar_of_a_file_that_is_not_a_note_without_embeddings(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as h:  # provider "none"
        await h.indexed()
        await _not_notes(h)
        missing = await h.err("find_similar", "note_not_found", path="Catz")
        assert "Pets/Cats.md" in missing["details"]["suggestions"], missing
        await h.err("find_similar", "mode_unavailable", path="Cats")  # a note: the mode's answer


async def test_find_similar_of_a_file_that_is_not_a_note_with_embeddings(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(FILES)) as h:
        await _not_notes(h)
        out = await h.ok("find_similar", path="Cats", limit=2)  # a bare note name still works
        assert out["items"] and "Pets/Cats.md" not in {i["path"] for i in out["items"]}
