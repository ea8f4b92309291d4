"""replace_text over a folder or the vault changes notes only: a canvas is in the index for its
words, but its file is JSON that a replacement would break (and path= refuses it as not_a_note)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

CANVAS = json.dumps({"nodes": [{"id": "a", "type": "text", "text": "Acme here", "x": 0, "y": 0}], "edges": []})
FILES: dict[str, str | bytes] = {"Board.canvas": CANVAS, "Work/Board.canvas": CANVAS, "Work/N.md": "# N\n\nAcme here\n"}


async def test_a_canvas_is_left_as_it_is(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        found = await vg.ok("search_regex", pattern="Acme")
        assert "Board.canvas" in {i["path"] for i in found["items"]}  # the canvas is searched
        for scope in ({}, {"folder": "Work"}):
            dry = await vg.ok("replace_text", find="Acme", replace='"', **scope)
            assert [i["path"] for i in dry["items"]] == ["Work/N.md"] and dry["files_changed"] == 1
            start = await vg.ok("replace_text", find=r"\A", replace="X", regex=True, **scope)
            assert [i["path"] for i in start["items"]] == ["Work/N.md"]
        await vg.err("replace_text", "not_a_note", find="Acme", replace="Z", path="Board.canvas")
        done = await vg.confirmed("replace_text", find="Acme", replace="Zeta", dry_run=False)
        assert done["files_changed"] == 1 and vg.read("Work/N.md") == "# N\n\nZeta here\n"
        assert vg.read("Board.canvas") == CANVAS and vg.read("Work/Board.canvas") == CANVAS
