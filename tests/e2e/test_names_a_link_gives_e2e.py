"""E2E (both eras, SDK client over real HTTP): a note tool given a canvas or an image by its name
names what it found — not_a_note for 'Board.canvas' (read_excalidraw, query_base answered
note_not_found for 'Board.canvas.md'), note_not_found with details.files for a bare 'Photo'
or 'Board' (read_note, query_base, read_attachment named nothing)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error
from tests.tools.test_names_a_link_gives_to_path_tools import CANVAS, FILES, IMAGE


async def test_a_file_named_to_a_note_tool_is_named_back(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            for tool in ("read_excalidraw", "query_base"):
                err = await error(client, tool, {"path": "[[Board.canvas]]"})
                assert err["code"] == "not_a_note" and err["details"]["path"] == CANVAS, (tool, err)
                assert err["details"]["read_with"] == "read_canvas", (tool, err)
            for tool, name, path, reader in (
                ("query_base", "Photo", IMAGE, "read_attachment"),
                ("read_note", "Board", CANVAS, "read_canvas"),
                ("read_attachment", "Board", CANVAS, "read_canvas"),
            ):
                err = await error(client, tool, {"path": name})
                assert err["code"] == "note_not_found", (tool, err)
                [file] = err["details"]["files"]
                assert file["path"] == path and file["read_with"] == reader, (tool, err)
