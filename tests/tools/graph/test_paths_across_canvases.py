"""shortest_path crosses a canvas in the middle of a path (B1, session 76).

Before: the link graph of the path tools held Markdown notes only, so Home -> (a canvas that
embeds Kyoto) -> Kyoto answered found=false, though a canvas could be an end of a path and
Obsidian's graph view draws a canvas as a node with its links. A canvas the caller may not read
is not crossed; central_notes and find_communities still rank and group the notes only."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


def _canvas(*nodes: dict[str, object], edges: tuple[dict[str, object], ...] = ()) -> str:
    """A JSON Canvas 1.0 file as Obsidian saves it (tab-indented, nodes then edges)."""
    placed = [{**n, "x": 40 * i, "y": 0, "width": 250, "height": 60} for i, n in enumerate(nodes)]
    return json.dumps({"nodes": placed, "edges": list(edges)}, indent="\t")


TRIP = _canvas(
    {"id": "6f0ad84f44ce9c17", "type": "file", "file": "Places/Kyoto.md"},
    {"id": "8132d4d8ec3b0d10", "type": "text", "text": "Day two: [[Nara]]"},
    {"id": "c4d1b7a2e5f60381", "type": "file", "file": "Photos/temple.png"},
    edges=(
        {
            "id": "a1b2c3d4e5f60718",
            "fromNode": "6f0ad84f44ce9c17",
            "fromSide": "right",
            "toNode": "8132d4d8ec3b0d10",
            "toSide": "left",
        },
    ),
)
FILES: dict[str, str | bytes] = {
    "Home.md": "# Home\n\nPlanning on ![[Trip board.canvas]]\n",
    "Boards/Trip board.canvas": TRIP,
    "Boards/Index.canvas": _canvas({"id": "0aa1", "type": "file", "file": "Boards/Trip board.canvas"}),
    "Places/Kyoto.md": "# Kyoto\n",
    "Places/Nara.md": "# Nara\n",
    "Places/Osaka.md": "# Osaka\n![[temple.png]]\n",
    "Photos/temple.png": b"\x89PNG\r\n\x1a\n",
    "Start.md": "[[Index.canvas]]\n",
    "Secret/Plan.canvas": _canvas({"id": "0bb2", "type": "file", "file": "Places/Osaka.md"}),
    "Lonely.md": "[[Plan.canvas]]\n",
}


async def test_a_path_crosses_a_canvas_in_its_middle(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()  # the graph of a first index still being built is partial
        out = await vg.ok("shortest_path", source="Home", target="Kyoto", directed=True)
        assert out["found"] is True and out["length"] == 2
        assert [n["path"] for n in out["notes"]] == ["Home.md", "Boards/Trip board.canvas", "Places/Kyoto.md"]
        assert [(h["direction"], h["text"]) for h in out["hops"]][0] == (
            "outlink",
            "Planning on ![[Trip board.canvas]]",
        )
        assert out["hops"][1]["direction"] == "outlink" and out["hops"][1]["line"] is not None, out["hops"]
        back = await vg.ok("shortest_path", source="Nara", target="Home")  # against the links, via a text card
        assert [(n["path"], h["direction"]) for n, h in zip(back["notes"][1:], back["hops"], strict=True)] == [
            ("Boards/Trip board.canvas", "backlink"),
            ("Home.md", "backlink"),
        ]
        assert (await vg.ok("shortest_path", source="Nara", target="Home", directed=True))["found"] is False
        two = await vg.ok("shortest_path", source="Start", target="Kyoto", directed=True)  # canvas -> canvas
        assert [n["path"] for n in two["notes"]] == [
            "Start.md",
            "Boards/Index.canvas",
            "Boards/Trip board.canvas",
            "Places/Kyoto.md",
        ]
        # An image is not crossed: Osaka and the canvas share temple.png, nothing else joins them.
        assert (await vg.ok("shortest_path", source="Osaka", target="Kyoto"))["found"] is False
        # central_notes and find_communities rank and group notes only, as before.
        central = await vg.ok("central_notes", limit=100)
        assert central["notes"] == 6 and central["links"] == 0
        assert all(i["path"].endswith(".md") for i in central["items"])


async def test_a_canvas_the_caller_may_not_read_is_not_crossed(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.indexed()
        open_path = await vg.ok("shortest_path", source="Lonely", target="Osaka", directed=True)
        assert [n["path"] for n in open_path["notes"]] == ["Lonely.md", "Secret/Plan.canvas", "Places/Osaka.md"]
    acl = {"prefix_rules": [{"path": "Secret", "read": "deny"}]}
    async with started(root, acl=acl) as vg:
        await vg.indexed()
        out = await vg.ok("shortest_path", source="Lonely", target="Osaka")
        assert out["found"] is False and out["notes"] == [] and out["hops"] == []
        assert (await vg.ok("shortest_path", source="Home", target="Kyoto"))["found"] is True
