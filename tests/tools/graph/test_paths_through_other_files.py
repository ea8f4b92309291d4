"""A canvas, a base or an image at an end of shortest_path, a missing file named by its extension,
and bundle_files of files that are not notes (H3, session 75).

Before: shortest_path took notes only (note_not_found 'Trip board.canvas.md' for a canvas the
backlinks list as linking); a missing 'Nope.base' was not_a_note ("names an Obsidian base") in the
graph tools and open_in_obsidian, 'Nope.canvas' note_not_found for 'Nope.canvas.md'; bundle_files
listed an existing canvas or base under `missing`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

BOARD = '{"nodes":[{"id":"a","type":"text","text":"See [[Kyoto]]","x":0,"y":0,"width":9,"height":9}],"edges":[]}'
FILES: dict[str, str | bytes] = {
    "Boards/Trip board.canvas": BOARD,
    "Places/Kyoto.md": "# Kyoto\nsee [[Osaka]]\n",
    "Places/Osaka.md": "# Osaka\n![[Books.base]]\n",
    "Places/Nara.md": "# Nara\n",
    "Bases/Books.base": "views:\n  - type: table\n    name: B\n",
    "Home.md": "[[Trip board.canvas]]\n",
}


async def test_shortest_path_takes_a_canvas_or_a_base_at_an_end(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()  # the graph of a first index still being built is partial
        out = await vg.ok("shortest_path", source="Trip board.canvas", target="Osaka")
        assert out["found"] is True and out["length"] == 2
        assert [n["path"] for n in out["notes"]] == ["Boards/Trip board.canvas", "Places/Kyoto.md", "Places/Osaka.md"]
        assert [(h["direction"], h["line"]) for h in out["hops"]] == [("outlink", 1), ("outlink", 2)]
        back = await vg.ok("shortest_path", source="Home", target="[[Trip board.canvas]]", directed=True)
        assert back["found"] and [h["text"] for h in back["hops"]] == ["[[Trip board.canvas]]"]
        base = await vg.ok("shortest_path", source="Kyoto", target="Books.base")
        assert [n["path"] for n in base["notes"]] == ["Places/Kyoto.md", "Places/Osaka.md", "Bases/Books.base"]
        against = await vg.ok("shortest_path", source="Books.base", target="Kyoto", directed=True)
        assert against["found"] is False  # a base links to nothing
        none = await vg.ok("shortest_path", source="Trip board.canvas", target="Nara")
        assert none["found"] is False


@pytest.mark.parametrize("tool", ["get_backlinks", "get_outlinks", "graph_neighbors", "open_in_obsidian"])
async def test_a_missing_base_or_canvas_is_not_found_with_the_closest_files(
    make_vault: Callable[..., Path], tool: str
) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()  # the graph of a first index still being built is partial
        base = await vg.err(tool, "note_not_found", path="Book.base")
        assert base["details"]["path"] == "Book.base" and base["details"]["kind"] == "base"
        assert base["details"]["suggestions"] == ["Bases/Books.base"]
        canvas = await vg.err(tool, "note_not_found", path="Trip bord.canvas")
        assert canvas["details"]["path"] == "Trip bord.canvas" and canvas["details"]["kind"] == "canvas"
        assert canvas["details"]["suggestions"] == ["Boards/Trip board.canvas"]
        note = await vg.err(tool, "note_not_found", path="Kyotoo")  # a note's name: the note lookup's answer
        assert note["details"]["suggestions"][0] == "Places/Kyoto.md"


async def test_shortest_path_of_a_missing_base_is_not_found(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()  # the graph of a first index still being built is partial
        error = await vg.err("shortest_path", "note_not_found", source="Book.base", target="Kyoto")
        assert error["details"]["kind"] == "base"


async def test_bundle_files_lists_a_canvas_or_a_base_apart_from_missing_names(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()  # the graph of a first index still being built is partial
        out = await vg.ok("bundle_files", paths=["Kyoto", "Trip board.canvas", "[[Books.base]]", "Nope", "Nope.base"])
        assert [e["path"] for e in out["entries"]] == ["Places/Kyoto.md"]
        assert out["missing"] == ["Nope", "Nope.base"]
        assert [(f["address"], f["path"], f["kind"], f["read_with"]) for f in out["not_notes"]] == [
            ("Trip board.canvas", "Boards/Trip board.canvas", "canvas", "read_canvas"),
            ("[[Books.base]]", "Bases/Books.base", "base", "query_base"),
        ]
