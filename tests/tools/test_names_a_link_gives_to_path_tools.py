"""Every tool that takes an existing note or file by its path, given what a person types for it:
a note by its bare name, in another letter case, in NFD Unicode, with '.md'; a canvas, an image
or an Excalidraw drawing by its name with or without its extension; a folder. Through the whole
dispatch chain, one table (N2, session 77).

Each answer finds the file as Obsidian's link resolution would, or is a structured error naming
what it found:
- a file named with its extension ('board.CANVAS', '[[Board.canvas]]', 'photo.PNG') to a tool
  that takes notes only is `not_a_note` with the file's path, kind and reader (read_excalidraw,
  query_base and every other `find_note` caller answered note_not_found for 'Board.canvas.md');
  by its path ('Pics/Photo.png') the same (it was kind 'attachment', no reader);
- a bare name no note has ('Board', 'Photo', 'Sketch') stays `note_not_found` — a link without an
  extension names a '.md' note — and names the files of that name in `details.files`, with the
  tool that reads each (the note tools, read_canvas, read_attachment said nothing of them);
- a writer answering so changes nothing.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, snapshot, started
from tests.tools.obsidian.test_attachments import png

SKETCH = (
    "---\nexcalidraw-plugin: parsed\n---\n# Excalidraw Data\n## Drawing\n```json\n"
    '{"type":"excalidraw","version":2,"elements":[],"appState":{}}\n```\n%%\n'
)
CAFE = unicodedata.normalize("NFC", "Café Menu")
FILES: dict[str, str | bytes] = {
    "Boards/Board.canvas": '{"nodes": [], "edges": []}',
    "Drawings/Sketch.excalidraw.md": SKETCH,
    "Pics/Photo.png": png(2, 2),
    "Notes/Kyoto.md": "---\nx: 1\ntags: [t]\n---\n# Kyoto\n\n- [ ] visit\n\nSee [[Board.canvas]] ![[Photo.png]]\n",
    f"Notes/{CAFE}.md": "# Café\n\n- [ ] tea\n",
    "Trips/Osaka.md": "# Osaka\n[[Kyoto]] [[Café Menu]]\n",
}
CANVAS, IMAGE, DRAWING = "Boards/Board.canvas", "Pics/Photo.png", "Drawings/Sketch.excalidraw.md"
NOTES = ["kyoto", "KYOTO.md", unicodedata.normalize("NFD", "café menu")]

# What a name is to a tool of each kind: "ok", ("not_a_note", path, kind, reader),
# ("files", path, kind, reader) = note_not_found naming that file in details.files, or an error code.
NOT_A_CANVAS = ("not_a_note", CANVAS, "canvas", "read_canvas")
NOT_AN_IMAGE = ("not_a_note", IMAGE, "image", "read_attachment")
FOLDER = ("not_a_note", "Trips", "folder", None)
BOARD = ("files", CANVAS, "canvas", "read_canvas")
PHOTO = ("files", IMAGE, "image", "read_attachment")
SKETCHED = ("files", DRAWING, "drawing", "read_excalidraw")
NOTE_ONLY: dict[str, Any] = {
    "Board": BOARD,
    "board.CANVAS": NOT_A_CANVAS,
    "[[Board.canvas]]": NOT_A_CANVAS,
    "Photo": PHOTO,
    "photo.PNG": NOT_AN_IMAGE,
    "Sketch": SKETCHED,
    "Trips": FOLDER,
    CANVAS: NOT_A_CANVAS,  # its path: the same answer as its name
    IMAGE: NOT_AN_IMAGE,
    **dict.fromkeys(NOTES, "ok"),
}
LINKED = {**NOTE_ONLY, **dict.fromkeys(["board.CANVAS", "[[Board.canvas]]", "photo.PNG", CANVAS, IMAGE], "ok")}
DRAWINGS = {**NOTE_ONLY, "Sketch": "ok", **dict.fromkeys(NOTES, "validation_error")}  # a note is no drawing
BASES = {**NOTE_ONLY, **dict.fromkeys(NOTES, "validation_error")}  # a note without a ```base block
CANVASES = {
    **dict.fromkeys(["Board", "board.CANVAS", "[[Board.canvas]]"], "ok"),
    "Photo": PHOTO,
    "photo.PNG": "validation_error",
    "Sketch": SKETCHED,
    "Trips": "note_not_found",
    "kyoto": "note_not_found",
    "KYOTO.md": "validation_error",
    NOTES[2]: "note_not_found",
    CANVAS: "ok",
    IMAGE: "validation_error",
}
FILE_TOOLS = {
    **CANVASES,
    "Board": BOARD,
    "board.CANVAS": "ok",
    "[[Board.canvas]]": "ok",
    "Photo": PHOTO,
    "photo.PNG": "ok",
    IMAGE: "ok",
    "kyoto": "note_not_found",
}
WRITES = {name: want for name, want in NOTE_ONLY.items() if want != "ok"}

# (tool, argument, other arguments, what each name is to it)
TABLE: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
    ("read_note", "path", {}, NOTE_ONLY),
    ("read_notes", "paths", {}, NOTE_ONLY),
    ("note_info", "path", {}, NOTE_ONLY),
    ("get_outline", "path", {}, NOTE_ONLY),
    ("get_properties", "path", {}, NOTE_ONLY),
    ("suggest_links", "path", {}, NOTE_ONLY),
    ("list_tasks", "note", {}, NOTE_ONLY),
    ("list_attachments", "for_note", {}, NOTE_ONLY),
    ("list_attachments", "embedded_by", {}, NOTE_ONLY),
    ("search_dql", "origin", {"query": "LIST"}, NOTE_ONLY),
    ("eval_dataview_field", "path", {"field": "file.name"}, NOTE_ONLY),
    ("tasks_filter", "file", {"query": "not done"}, NOTE_ONLY),
    ("query_base", "this", {"yaml": "views:\n  - type: table\n"}, NOTE_ONLY),
    ("query_base", "path", {}, BASES),
    ("read_excalidraw", "path", {}, DRAWINGS),
    ("get_backlinks", "path", {}, LINKED),
    ("get_outlinks", "path", {}, LINKED),
    ("graph_neighbors", "path", {}, LINKED),
    ("shortest_path", "source", {"target": "Osaka"}, LINKED),
    ("read_canvas", "path", {}, CANVASES),
    ("read_attachment", "path", {}, FILE_TOOLS),
    ("set_properties", "path", {"properties": {"y": 2}}, WRITES),
    ("delete_property", "path", {"key": "x"}, WRITES),
    ("add_tags", "path", {"tags": ["new"]}, WRITES),
    ("remove_tags", "path", {"tags": ["t"]}, WRITES),
    ("append_note", "path", {"content": "more"}, WRITES),
    ("prepend_note", "path", {"content": "more"}, WRITES),
    ("patch_note", "path", {"content": "more", "heading": "Kyoto", "position": "append"}, WRITES),
    ("set_task_status", "path", {"line": 7, "status": "done", "expected_text": "visit"}, WRITES),
]


async def _answer(vg: Harness, tool: str, field: str, name: str, more: dict[str, Any]) -> dict[str, Any]:
    """The call's result: {"ok": structured} or {"error": error}; read_notes answers in its item."""
    if field == "paths":
        [item] = (await vg.ok(tool, paths=[name], **more))["items"]
        return {"error": item["error"]} if item.get("error") else {"ok": item}
    result = await vg.call(tool, **{field: name, **more})
    assert result.structured is not None, (tool, name)
    return {"error": result.structured["error"]} if result.is_error else {"ok": result.structured}


@pytest.mark.parametrize(("tool", "field", "more", "table"), TABLE, ids=[f"{t[0]}.{t[1]}" for t in TABLE])
async def test_each_name_finds_the_file_or_names_what_it_found(
    make_vault: Callable[..., Path], tool: str, field: str, more: dict[str, Any], table: dict[str, Any]
) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.indexed()
        before = snapshot(root)
        for name, want in table.items():
            got = await _answer(vg, tool, field, name, more)
            where = (tool, field, name, got)
            if want == "ok":
                assert "ok" in got, where
                continue
            assert "error" in got, where
            error = got["error"]
            if isinstance(want, str):
                assert error["code"] == want, where
                continue
            shape, path, kind, reader = want
            if field == "paths":  # read_notes keeps an item's code and message, not its details
                assert error["code"] == ("note_not_found" if shape == "files" else shape), where
                assert repr(path) in error["message"], where
                continue
            if shape == "files":
                assert error["code"] == "note_not_found", where
                assert error["details"]["files"] == [{"path": path, "kind": kind, "read_with": reader}], where
                assert repr(path) in error["message"] and reader in error["message"], where
                continue
            assert error["code"] == "not_a_note", where
            assert error["details"]["path"] == path and error["details"]["kind"] == kind, where
            if reader is not None:
                assert error["details"]["read_with"] == reader, where
        if table is WRITES:
            assert snapshot(root) == before, tool


async def test_a_note_or_a_drawing_of_that_name_wins(make_vault: Callable[..., Path]) -> None:
    """A note named like the canvas is the note; a name no file has keeps a plain note_not_found;
    read_excalidraw still finds a plain '.excalidraw' file by its name in any folder."""
    files = {
        **FILES,
        "Board.md": "# The board note\n",
        "Drawings/Plain.excalidraw": '{"type":"excalidraw","version":2,"elements":[],"appState":{}}',
    }
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        assert (await vg.ok("read_note", path="Board"))["path"] == "Board.md"
        nothing = await vg.err("read_note", "note_not_found", path="Nowhere")
        assert "files" not in nothing["details"], nothing
        for name in ("Plain", "plain.excalidraw", "[[Plain.excalidraw]]"):
            assert (await vg.ok("read_excalidraw", path=name))["path"] == "Drawings/Plain.excalidraw", name
        plain = await vg.err("read_note", "not_a_note", path="Plain.excalidraw")
        assert plain["details"] == {
            "path": "Drawings/Plain.excalidraw",
            "kind": "drawing",
            "read_with": "read_excalidraw",
        }
