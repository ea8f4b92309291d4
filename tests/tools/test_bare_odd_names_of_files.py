"""Files that are not notes named with '|' or '#' (`Boards/Board|x.canvas`, `Scans/scan#1.pdf`)
are found by their name with its extension and without its folder, as Obsidian resolves
`![[scan#1.pdf]]`'s file and as notes so named are found since 7943ce3a (A2 s83), by every tool
that takes such a file: the canvas, Excalidraw, base and attachment readers, delete_note,
move_note, rename_note, copy_note, add_bookmark, get_backlinks, a plan's step (validate_plan's
effects), and a note tool answers not_a_note naming the file.

Before (A4 s84), a tool that looks a note up first cut such a name where a link cuts it:
`scan#1.pdf` was note 'scan' with the section '1.pdf' (delete_note, move_note: validation_error
section_not_supported), `Board|x.canvas` note 'Board' shown as 'x.canvas' (read_note,
add_bookmark: note_not_found "no note at 'Board.md'"; copy_note copied Board.md, and with a note
`scan.md` delete_note of `scan|1.pdf` trashed that note). The file named so wins over the cut, as a
note or folder named so does; in brackets the cut stays (`[[Board|x.canvas]]` is note Board)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

CANVAS = '{"nodes":[{"id":"a","type":"text","text":"hi","x":0,"y":0,"width":10,"height":10}],"edges":[]}'
DRAWING = '{"type":"excalidraw","version":2,"elements":[]}'
# The marker of each file's name: '#' everywhere, '|' where the file system allows it.
MARKS = ["#"] + ([] if os.name == "nt" else ["|"])


def _files(m: str) -> dict[str, str]:
    return {
        f"Boards/Board{m}x.canvas": CANVAS,
        f"Draw/Sketch{m}1.excalidraw": DRAWING,
        f"Bases/Books{m}b.base": "views:\n  - type: table\n    name: All\n",
        f"Scans/notes{m}1.txt": "scanned words\n",
        f"Scans/scan{m}1.pdf": "%PDF-1.4\n",
        "Board.md": "# Board\nthe note a cut would name\n",
        "scan.md": "# scan\n\n## 1.pdf\nthe section a cut would name\n",
        "Home.md": "# Home\n",
    }


@pytest.mark.parametrize("m", MARKS)
async def test_a_file_is_found_by_its_name_with_its_extension(make_vault: Callable[..., Path], m: str) -> None:
    root = make_vault(_files(m))
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        reads: list[tuple[str, dict[str, Any], str]] = [
            ("read_canvas", {"path": f"Board{m}x.canvas"}, f"Boards/Board{m}x.canvas"),
            ("read_excalidraw", {"path": f"Sketch{m}1.excalidraw"}, f"Draw/Sketch{m}1.excalidraw"),
            ("read_attachment", {"path": f"notes{m}1.txt"}, f"Scans/notes{m}1.txt"),
            ("get_backlinks", {"path": f"scan{m}1.pdf"}, f"Scans/scan{m}1.pdf"),
            ("get_outlinks", {"path": f"Board{m}x.canvas"}, f"Boards/Board{m}x.canvas"),
            ("read_note", {"path": f"Books{m}b.base"}, f"Bases/Books{m}b.base"),
            ("query_base", {"path": f"Books{m}b.base"}, f"Bases/Books{m}b.base"),  # its own row
        ]
        for tool, args, path in reads:
            assert path in str(await vg.ok(tool, **args)), (tool, args)
        for name, path, kind in (
            (f"Board{m}x.canvas", f"Boards/Board{m}x.canvas", "canvas"),
            (f"scan{m}1.pdf", f"Scans/scan{m}1.pdf", "pdf"),
        ):
            refused = await vg.err("read_note", "not_a_note", path=name)
            assert refused["details"]["path"] == path and refused["details"]["kind"] == kind, refused
        if m == "|":  # a link's brackets still cut: note Board shown as 'x.canvas'
            assert (await vg.ok("read_note", path=f"[[Board{m}x.canvas]]"))["path"] == "Board.md"
        else:  # note Board's heading 'x.canvas', which it has not
            cut = await vg.err("read_note", "validation_error", path=f"[[Board{m}x.canvas]]")
            assert cut["details"]["heading"] == ["x.canvas"], cut
        await vg.ok("add_bookmark", type="file", path=f"Board{m}x.canvas")
        marks = (await vg.ok("list_bookmarks"))["items"]
        assert [b.get("path") for b in marks] == [f"Boards/Board{m}x.canvas"], marks


@pytest.mark.parametrize("m", MARKS)
async def test_a_file_is_written_moved_and_deleted_by_its_name(make_vault: Callable[..., Path], m: str) -> None:
    root = make_vault(_files(m))
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        steps = [
            {"id": "d", "tool": "delete_note", "args": {"path": f"scan{m}1.pdf"}},
            {"id": "c", "tool": "copy_note", "args": {"path": f"Board{m}x.canvas", "new_path": "Copies/B.canvas"}},
        ]
        effects = (await vg.ok("validate_plan", plan={"goal": "tidy", "steps": steps}))["effects"]
        assert effects["files_deleted"] == [f"Scans/scan{m}1.pdf"], effects  # never scan.md, nor 'scan#1.pdf'
        assert effects["files_created"] == [f".trash/Scans/scan{m}1.pdf", "Copies/B.canvas"], effects
        await vg.confirmed("write_canvas", path=f"Board{m}x.canvas", nodes=[], edges=[])
        assert json.loads(vg.read(f"Boards/Board{m}x.canvas")) == {"nodes": [], "edges": []}
        add = [{"type": "text", "text": "yo", "x": 0, "y": 0}]
        assert (await vg.ok("write_excalidraw", path=f"Sketch{m}1.excalidraw", add=add))["path"] == (
            f"Draw/Sketch{m}1.excalidraw"
        )
        copied = await vg.ok("copy_note", path=f"Board{m}x.canvas", new_path="Copies/Board.canvas")
        assert copied["path"] == "Copies/Board.canvas" and (root / "Copies/Board.canvas").is_file()
        await vg.settled()
        await vg.confirmed("move_note", path=f"scan{m}1.pdf", new_path="Moved/scan.pdf")
        assert (root / "Moved/scan.pdf").is_file() and not (root / f"Scans/scan{m}1.pdf").exists()
        await vg.settled()
        await vg.ok("rename_note", path=f"Board{m}x.canvas", new_path="Boards/Renamed.canvas")
        assert (root / "Boards/Renamed.canvas").is_file() and not (root / f"Boards/Board{m}x.canvas").exists()
        await vg.settled()
        gone = await vg.ok("delete_note", path=f"notes{m}1.txt")
        assert gone["path"] == f"Scans/notes{m}1.txt" and not (root / gone["path"]).exists(), gone
        await vg.settled()
        gone = await vg.ok("delete_note", path=f"Books{m}b.base")
        assert gone["path"] == f"Bases/Books{m}b.base", gone
        assert vg.read("scan.md") == _files(m)["scan.md"] and vg.read("Board.md") == _files(m)["Board.md"]
