"""read_canvas of a canvas whose answer is over the response limit is refused before its answer
is built (U1 s80's note, session 81). It built every node and edge, then the governor measured
the answer and refused it: an 8.8 MB canvas (100,000 nodes) cost ~17 s CPU and ~166 MB before
`overflow`. Now the text the answer must hold (the listed nodes' and edges' strings, counted
until past the limit) is checked right after the file is parsed: the same `overflow` (details
bytes, limit, tool; the governor's hint), with bytes "at least". A canvas whose file is over the
limit but whose answer is not (indentation, nodes read_canvas does not list) still reads."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.obsidian import canvas as canvas_tool
from tests.conftest import started

LIMIT = 64 * 1024


def _node(i: int) -> dict[str, Any]:
    return {"id": f"n{i}", "type": "text", "text": f"Node {i} says something", "x": i, "y": 0, "width": 9, "height": 9}


BIG = {
    "nodes": [_node(i) for i in range(4000)],
    "edges": [{"id": f"e{i}", "fromNode": f"n{i}", "toNode": f"n{i + 1}"} for i in range(3999)],
}
PADDED = {"nodes": [_node(i) for i in range(20)], "edges": []}
UNPLACED = {"nodes": [_node(0), *({"id": f"u{i}", "type": "text", "text": "x" * 1000} for i in range(100))]}
FILES = {
    "Big.canvas": json.dumps(BIG),
    "Padded.canvas": json.dumps(PADDED, indent=" " * 400),  # ~150 KB of indentation, an answer of ~3 KB
    "Unplaced.canvas": json.dumps(UNPLACED),  # 100 KB of nodes without geometry: not listed
    "Home.md": "# Home\n",
}


async def test_an_answer_over_the_limit_is_refused_before_it_is_built(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[object] = []
    real = canvas_tool._node_out
    monkeypatch.setattr(canvas_tool, "_node_out", lambda ctx, node: built.append(node) or real(ctx, node))
    async with started(make_vault(FILES), governor={"max_response_bytes": LIMIT}) as vg:
        refused = await vg.err("read_canvas", "overflow", path="Big.canvas")
        assert built == [], len(built)  # no node built for an answer that is refused
        details = refused["details"]
        assert details["tool"] == "read_canvas" and details["limit"] == LIMIT < details["bytes"], refused
        assert refused["message"].startswith("result of at least"), refused
        assert "answers whole" in refused["hint"] and "max_response_bytes" in refused["hint"], refused
        padded = await vg.ok("read_canvas", path="Padded.canvas")
        assert [n["id"] for n in padded["nodes"]] == [f"n{i}" for i in range(20)], padded
        unplaced = await vg.ok("read_canvas", path="Unplaced.canvas")
        assert [n["id"] for n in unplaced["nodes"]] == ["n0"], unplaced
