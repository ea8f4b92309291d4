"""Vault files holding half a UTF-16 pair answer, never internal_error (U13, session 79).

JavaScript's JSON.stringify writes a lone surrogate as the escape `\\ud800` (a label cut between
the halves of an emoji), and Python's JSON reader makes it a character that is no text: no UTF-8
for it, no JSON answer. A canvas holding one made read_canvas and write_canvas answer
internal_error (and the index skipped the canvas: its words unsearchable, its links unknown); a
bookmark holding one made every rename_note / move_note of the vault internal_error (the
bookmark's key hashed its UTF-8); a path holding one in workspace.json made get_workspace and
list_recent_files internal_error (`service.vault.paths` measured its UTF-8). Now a canvas reads
each lone surrogate as U+FFFD (as Obsidian shows it), a bookmark's key hashes it as it is and the
bookmarks file is written back with its escape, and such a path is no vault path (passed over).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

S = "\\ud800"
NODE = {"x": 0, "y": 0, "width": 10, "height": 10}
CANVAS = (
    '{"nodes":[{"id":"a","type":"text","text":"hi '
    + S
    + ' there [[A]]","x":0,"y":0,"width":10,"height":10},{"id":"b","type":"file","file":"A.md","x":0,"y":0,'
    '"width":10,"height":10}],"edges":[],"meta' + S + '":"v' + S + '"}'
)
BOOKMARKS = '{"items":[{"type":"file","path":"A.md","title":"t' + S + '"},{"type":"file","path":"B.md"}]}'
WORKSPACE = '{"main":{"id":"m","type":"split","children":[]},"lastOpenFiles":["A' + S + '.md","A.md"]}'


@pytest.mark.covers("read_canvas", "success")
@pytest.mark.covers("write_canvas", "success")
async def test_a_canvas_with_a_lone_surrogate_reads_and_is_written(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n", "M.canvas": CANVAS})
    async with started(root) as vg:
        await vg.settled()
        out = await vg.ok("read_canvas", path="M.canvas")
        assert out["nodes"][0]["text"] == "hi \ufffd there [[A]]" and out["extra"] == {"meta\ufffd": "v\ufffd"}
        back = await vg.ok("get_backlinks", path="A")  # the canvas is indexed: its links are known
        assert "M.canvas" in {i["path"] for i in back["items"]}
        found = await vg.ok("search_text", query="there")
        assert "M.canvas" in {i["path"] for i in found["items"]}
        nodes = [{"id": "b", "type": "file", "file": "A.md", **NODE}]
        await vg.confirmed("write_canvas", path="M.canvas", nodes=nodes, edges=[])
        written = json.loads(vg.read("M.canvas"))
        assert written["nodes"] == nodes and written["meta\ufffd"] == "v\ufffd"


@pytest.mark.covers("rename_note", "success")
async def test_a_rename_goes_on_with_a_lone_surrogate_in_a_bookmark(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n", "B.md": "# B\n", ".obsidian/bookmarks.json": BOOKMARKS})
    async with started(root) as vg:
        await vg.settled()
        out = await vg.ok("rename_note", path="A", new_path="A2")
        assert out["path"] == "A2.md"
    text = (root / ".obsidian" / "bookmarks.json").read_text(encoding="utf-8")
    items = json.loads(text)["items"]
    assert items[0] == {"type": "file", "path": "A2.md", "title": "t\ud800"}  # the title kept, as written
    assert S in text and items[1] == {"type": "file", "path": "B.md"}


async def test_a_recent_file_with_a_lone_surrogate_is_passed_over(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n", ".obsidian/workspace.json": WORKSPACE})
    async with started(root) as vg:
        recent = await vg.ok("list_recent_files")
        assert [i["path"] for i in recent["items"]] == ["A.md"]
        workspace = await vg.ok("get_workspace")
        assert [i["path"] for i in workspace["recent_files"]] == ["A.md"]
