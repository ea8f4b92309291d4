"""E2E (both eras, SDK client over real HTTP): a canvas and a bookmark holding half a UTF-16 pair
(`\\ud800`, as JavaScript writes one) answer read_canvas and rename_note, not internal_error
(tests/reliability/test_attack_surrogate_files.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.reliability.test_attack_surrogate_files import BOOKMARKS, CANVAS


async def test_files_with_a_lone_surrogate_answer(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"A.md": "# A\n", "B.md": "# B\n", "M.canvas": CANVAS, ".obsidian/bookmarks.json": BOOKMARKS})
    async with e2e(root) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        canvas = await ok(client, "read_canvas", {"path": "M.canvas"})
        assert canvas["nodes"][0]["text"] == "hi \ufffd there [[A]]"
        moved = await ok(client, "rename_note", {"path": "B", "new_path": "B2"})
        assert moved["path"] == "B2.md"
    items = json.loads((root / ".obsidian" / "bookmarks.json").read_text(encoding="utf-8"))["items"]
    assert [i["path"] for i in items] == ["A.md", "B2.md"]
