"""JSON files in the vault nested past Python's parser limit (`{"a":{"a":…}}`, 5,000 levels in
35 KB: a corrupted sync, a hostile shared vault) are JSON the server cannot read, like any other
broken JSON. Before, `json.loads` raised RecursionError (not a ValueError) and every tool that
reads such a file answered internal_error: read_canvas and write_canvas on the canvas; with a
deep `.obsidian/workspace.json`, `bookmarks.json`, `daily-notes.json`, `templates.json`, `app.json`:
get_workspace, list_recent_files, list_bookmarks, add_bookmark, move_note, delete_note,
get_periodic_note, create_periodic_note, list_templates and list_attachments."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

DEEP = '{"a":' * 5000 + "1" + "}" * 5000
SETTINGS = ["workspace.json", "bookmarks.json", "daily-notes.json", "templates.json", "app.json"]


async def answer(vg: Harness, tool: str, **args: Any) -> dict[str, Any]:
    """The call's structured answer, confirmed by a human when it asks for one."""
    result = await vg.call(tool, **args)
    assert result.structured is not None
    if result.is_error and result.structured["error"]["code"] == "elicit_required":
        return await vg.confirmed(tool, **args)
    return result.structured


async def test_deeply_nested_json_files_are_unreadable_json_not_an_internal_error(
    make_vault: Callable[..., Path],
) -> None:
    files: dict[str, str | bytes] = {"Home.md": "# Home\n[[B]]\n", "B.md": "# B\n", "Board.canvas": DEEP}
    files.update({f".obsidian/{name}": DEEP for name in SETTINGS})
    root = make_vault(files)
    async with started(root) as vg:
        await vg.indexed()
        error = await vg.err("read_canvas", "validation_error", path="Board.canvas")
        assert error["details"]["reason"] == "invalid_json"
        assert (await answer(vg, "get_workspace"))["found"] is False
        assert (await answer(vg, "list_recent_files"))["items"] == []
        assert (await answer(vg, "list_bookmarks"))["items"] == []
        await vg.err("add_bookmark", "validation_error", type="file", path="B.md")  # never overwrites it
        assert (await answer(vg, "get_periodic_note", period="daily", date="2021-01-01"))["exists"] is False
        assert (await answer(vg, "list_templates"))["items"] == []
        attachments = await answer(vg, "list_attachments")
        assert [item["path"] for item in attachments["items"]] == ["Board.canvas"]
        assert (await answer(vg, "move_note", path="B.md", new_path="C.md"))["path"] == "C.md"
        assert (await answer(vg, "create_periodic_note", period="daily", date="2021-01-01"))["created"] is True
        assert (await answer(vg, "delete_note", path="Home.md"))["deleted"] is True
        written = await answer(vg, "write_canvas", path="Board.canvas", nodes=[])
        assert written["nodes"] == 0
    for name in SETTINGS:
        assert (root / ".obsidian" / name).read_text(encoding="utf-8") == DEEP
