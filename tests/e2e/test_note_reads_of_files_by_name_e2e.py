"""E2E (both eras, SDK client over real HTTP): read_note, note_info and get_outline given a canvas
or an image by the name a link gives it answer not_a_note naming the file, its kind and the tool
that reads it; read_notes answers it in the item."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.tools.notes.test_note_reads_of_files_by_name import FILES


async def test_note_reads_name_the_file_a_link_names(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            for tool in ("read_note", "note_info", "get_outline"):
                err = await error(client, tool, {"path": "Trip board.canvas"})
                assert err["code"] == "not_a_note" and err["details"]["kind"] == "canvas", (tool, err)
                assert err["details"]["read_with"] == "read_canvas", (tool, err)
            [item] = (await ok(client, "read_notes", {"paths": ["[[temple.png]]"]}))["items"]
            assert item["error"]["code"] == "not_a_note" and "Trips/img/temple.png" in item["error"]["message"]
