"""Paths across canvases and properties written as Obsidian writes them, as a user meets them
(B1, session 76): a real uvicorn server and the SDK's Streamable HTTP client in both protocol eras."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
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
