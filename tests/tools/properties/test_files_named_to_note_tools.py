"""get_properties, the property edits and suggest_links given a canvas or an image by its name
(B1, session 76; M9 s75 left reading tools on a canvas or an image by name unchecked).

Before: 'Trip board.canvas' (the canvas lives in Boards/) answered note_not_found for
'Trip board.canvas.md' with no suggestion, though the file is there (its full path was already
not_a_note); now not_a_note with the file's path, its kind and the tool that reads it, and
nothing is written. A name no file has, and a note whose name holds a dot, answer as before."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

BOARD = {"nodes": [{"id": "6f0a", "type": "file", "file": "Places/Kyoto.md", "x": 0, "y": 0, "width": 9, "height": 9}]}
FILES: dict[str, str | bytes] = {
    "Boards/Trip board.canvas": json.dumps({**BOARD, "edges": []}, indent="\t"),
    "Photos/temple.png": b"\x89PNG\r\n\x1a\n",
    "Places/Kyoto.md": "# Kyoto\n![[temple.png]]\n",
    "Notes/v1.2 notes.md": "# Release\n",
}
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_properties", {}),
    ("set_properties", {"properties": {"status": "done"}}),
    ("delete_property", {"key": "status"}),
    ("add_tags", {"tags": ["trip"]}),
    ("remove_tags", {"tags": ["trip"]}),
    ("suggest_links", {}),
]


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=[c[0] for c in CALLS])
async def test_a_canvas_or_an_image_by_name_is_not_a_note(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any]
) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        before = vg.snapshot()
        for name, path, kind, reader in [
            ("Trip board.canvas", "Boards/Trip board.canvas", "canvas", "read_canvas"),
            ("[[trip BOARD.canvas]]", "Boards/Trip board.canvas", "canvas", "read_canvas"),
            ("temple.png", "Photos/temple.png", "image", "read_attachment"),
        ]:
            error = await vg.err(tool, "not_a_note", path=name, **args)
            assert error["details"] == {"path": path, "kind": kind, "read_with": reader}
            assert reader in error["hint"]
        missing = await vg.err(tool, "note_not_found", path="Nope.canvas", **args)
        assert missing["details"]["path"] == "Nope.canvas.md"  # the note lookup's answer, as before
        assert vg.changed_since(before) == set()
        if tool == "get_properties":
            assert (await vg.ok(tool, path="v1.2 notes"))["path"] == "Notes/v1.2 notes.md"
