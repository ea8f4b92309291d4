"""Paths across canvases and properties written as Obsidian writes them, as a user meets them
(B1, session 76): a real uvicorn server and the SDK's Streamable HTTP client in both protocol eras."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error as _error
from tests.e2e.calls import ok as _ok


async def test_shortest_path_crosses_a_canvas(make_vault: Callable[..., Path], mode: str) -> None:
    """Home embeds a canvas with a card of Kyoto: shortest_path Home -> Kyoto answered
    found=false (the path tools' graph held notes only; a canvas could only be an end)."""
    board = {
        "nodes": [
            {
                "id": "6f0ad84f44ce9c17",
                "type": "file",
                "file": "Places/Kyoto.md",
                "x": 0,
                "y": 0,
                "width": 400,
                "height": 400,
            }
        ],
        "edges": [],
    }
    files: dict[str, str | bytes] = {
        "Home.md": "# Home\n![[Trip board.canvas]]\n",
        "Boards/Trip board.canvas": json.dumps(board, indent="\t"),
        "Places/Kyoto.md": "# Kyoto\n",
    }
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        path = await _ok(c, "shortest_path", source="Home", target="Kyoto", directed=True)
        assert path["found"] is True
        assert [n["path"] for n in path["notes"]] == ["Home.md", "Boards/Trip board.canvas", "Places/Kyoto.md"]
        central = await _ok(c, "central_notes")
        assert central["notes"] == 2 and central["links"] == 0  # the ranking is of notes, as before


async def test_a_multiline_property_is_a_literal_block(make_vault: Callable[..., Path], mode: str) -> None:
    """set_properties wrote a text of several lines as "a\\nb" (double-quoted, escaped);
    Obsidian writes a literal block, and rewrote ours on its next save."""
    vault = make_vault({"Notes/Kyoto.md": "# Kyoto\n"})
    summary = "Temples: many\n# not a heading\n---\nend"
    async with e2e(vault, index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        await _ok(c, "set_properties", path="kyoto", properties={"summary": summary, "steps": ["a\nb"]})
        text = (vault / "Notes/Kyoto.md").read_text()
        assert text == (
            "---\nsummary: |-\n  Temples: many\n  # not a heading\n  ---\n  end\n"
            "steps:\n  - |-\n    a\n    b\n---\n# Kyoto\n"
        )
        got = await _ok(c, "get_properties", path="kyoto")
        assert got["properties"] == {"summary": summary, "steps": ["a\nb"]}


async def test_a_canvas_by_name_in_a_property_tool_is_not_a_note(make_vault: Callable[..., Path], mode: str) -> None:
    """get_properties 'Trip board.canvas' (the canvas in Boards/) answered note_not_found for
    'Trip board.canvas.md' with no suggestion; it now names the canvas and read_canvas."""
    board = {"nodes": [], "edges": []}
    vault = make_vault({"Boards/Trip board.canvas": json.dumps(board), "Home.md": "# Home\n"})
    async with e2e(vault, index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        error = await _error(c, "get_properties", path="Trip board.canvas")
        assert error["code"] == "not_a_note" and error["details"]["path"] == "Boards/Trip board.canvas"
        assert error["details"]["read_with"] == "read_canvas"
