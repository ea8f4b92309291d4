"""An `expected_etag` for a file that is not there is one answer in every writing tool (issue 41,
item 4): `note_not_found`, never a `conflict` saying "the note changed since you read it"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

GHOST = "0" * 32
FILES = {
    "Templates/Daily.md": "# {{title}}\n",
    ".obsidian/templates.json": json.dumps({"folder": "Templates"}),
    "Home.md": "# Home\n",
}
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("write_note", {"path": "Nope/Missing", "content": "x", "mode": "overwrite"}),
    ("write_canvas", {"path": "Nope/Missing", "nodes": [], "edges": []}),
    ("append_to_periodic_note", {"period": "daily", "date": "2027-01-01", "content": "x"}),
    ("apply_template", {"template": "Daily", "path": "Nope/Missing2"}),
    ("write_excalidraw", {"path": "Nope/Missing3", "add": [{"type": "text", "text": "hi", "x": 0, "y": 0}]}),
    ("copy_note", {"path": "Home", "new_path": "Nope/Copy", "overwrite": True}),
    (
        "bulk_create_notes",
        {"notes": [{"path": "Nope/Bulk", "content": "x", "expected_etag": GHOST}], "overwrite": True},
    ),
]


async def test_an_etag_for_a_file_that_is_not_there_is_note_not_found(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        before = vg.snapshot()
        for tool, args in CALLS:
            if tool != "bulk_create_notes":
                args = {**args, "expected_etag": GHOST}
            error = await vg.err(tool, "note_not_found", **args)
            assert "changed since" not in error["message"] + error["hint"], (tool, error)
            assert "without expected_etag" in error["hint"], (tool, error)
        assert vg.snapshot() == before
        # A file that is there with another version is still a conflict (read it again).
        stale = await vg.err("apply_template", "conflict", template="Daily", path="Home", expected_etag=GHOST)
        assert stale["details"]["current_etag"] is not None
