"""The note-reading tools given a canvas, a base's sibling file or an image by the name a link gives
it ('Trip board.canvas', '[[temple.png]]', in a subfolder) answer not_a_note naming the file, its
kind and the tool that reads it: read_note, read_notes, note_info and get_outline answered
note_not_found for 'Trip board.canvas.md' with no suggestion (B1's s76 find: property tools were
fixed in cf8dc4d7 with `find_note_only`, these four were left). A note of that name still wins; a
name no file has keeps its note_not_found. Through the whole dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

FILES: dict[str, str | bytes] = {
    "Trips/Trip board.canvas": '{"nodes": [], "edges": []}',
    "Trips/img/temple.png": b"\x89PNG\r\n\x1a\n",
    "Trips/Kyoto.md": "# Kyoto\n\n![[temple.png]]\n",
}


@pytest.mark.parametrize("tool", ["read_note", "note_info", "get_outline", "read_notes"])
@pytest.mark.parametrize(
    ("address", "path", "kind", "reader"),
    [
        ("Trip board.canvas", "Trips/Trip board.canvas", "canvas", "read_canvas"),
        ("[[temple.png]]", "Trips/img/temple.png", "image", "read_attachment"),
    ],
)
async def test_a_file_named_as_a_link_names_it_is_not_a_note(
    make_vault: Callable[..., Path], tool: str, address: str, path: str, kind: str, reader: str
) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        if tool == "read_notes":  # each address answered in its item
            [item] = (await vg.ok(tool, paths=[address]))["items"]
            assert item["error"]["code"] == "not_a_note" and repr(path) in item["error"]["message"], item
            return
        error = await vg.err(tool, "not_a_note", path=address)
        assert error["details"]["path"] == path and error["details"]["kind"] == kind, error
        assert error["details"]["read_with"] == reader, error


async def test_a_note_of_that_name_and_a_missing_name_answer_as_before(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({**FILES, "Trip board.canvas.md": "# A note named so\n"})) as vg:
        await vg.indexed()
        assert "A note named so" in (await vg.ok("read_note", path="Trip board.canvas"))["content"]
        await vg.err("read_note", "note_not_found", path="Nowhere.canvas")
