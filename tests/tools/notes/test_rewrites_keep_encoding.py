"""Every rewrite keeps a file's encoding (E2 s83, after c68096aa's edits): a move's link rewrites
into a canvas, an Excalidraw drawing and bookmarks.json, write_canvas, add_bookmark,
write_excalidraw, the memory tools' entity notes and bulk_create_notes' rollback each saved a
cp1252 / UTF-16 file as UTF-8 (`Café`, `Caf\\xe9`, became `Caf\\xc3\\xa9`). They now write through
`decoding.encode_edit` in the encoding the file was read in. A JSON file (a canvas, bookmarks.json)
takes a character its encoding lacks as the JSON escape that means it (`\\u6771`), never refused;
a Markdown one (a drawing, an entity note) refuses it (`validation_error`, reason `unrepresentable`)
and keeps its bytes. validate_plan foresees that refusal of an append step, as the run makes it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.obsidian.bookmarks import dumps as bookmarks_text
from tests.conftest import started


def cp1252(text: str) -> bytes:
    return text.encode("cp1252")


def utf16(text: str) -> bytes:
    return b"\xff\xfe" + text.encode("utf-16-le")


CANVAS = (
    '{\n\t"nodes":[\n'
    '\t\t{"id":"t1","type":"text","text":"Café","x":0,"y":0,"width":200,"height":60},\n'
    '\t\t{"id":"f1","type":"file","file":"Old.md","x":300,"y":0,"width":200,"height":60}\n'
    '\t],\n\t"edges":[]\n}'
)
MARKS = bookmarks_text({"items": [{"type": "file", "ctime": 1, "path": "Old.md", "title": "Café"}]})
DRAWING = "Été: see [[Old]]\n"
WORKSPACE = json.dumps({"main": {}, "lastOpenFiles": ["Old.md", "Café.md"]}, indent=2, ensure_ascii=False) + "\n"


async def test_moves_and_whole_file_rewrites_keep_the_encoding(make_vault: Callable[..., Path]) -> None:
    vault: dict[str, Any] = {
        "Old.md": "old\n",
        "Board.canvas": cp1252(CANVAS),
        "Drawn.md": utf16(DRAWING),
        ".obsidian/bookmarks.json": cp1252(MARKS),
        ".obsidian/workspace.json": utf16(WORKSPACE),
    }
    async with started(make_vault(vault)) as vg:
        await vg.indexed()
        board, marks, drawn = vg.root / "Board.canvas", vg.root / ".obsidian/bookmarks.json", vg.root / "Drawn.md"
        await vg.ok("move_note", path="Old.md", new_path="Nouveau à.md")
        assert board.read_bytes() == cp1252(CANVAS.replace('"Old.md"', '"Nouveau à.md"'))
        assert marks.read_bytes() == cp1252(MARKS.replace('"Old.md"', '"Nouveau à.md"'))
        assert drawn.read_bytes() == utf16(DRAWING.replace("[[Old]]", "[[Nouveau à]]"))
        workspace = (vg.root / ".obsidian/workspace.json").read_bytes()
        assert workspace == utf16(WORKSPACE.replace('"Old.md"', '"Nouveau à.md"')), workspace
        # a name cp1252 lacks: in JSON its escape, the file still cp1252; the UTF-16 note holds it
        await vg.ok("move_note", path="Nouveau à.md", new_path="東.md")
        assert board.read_bytes() == cp1252(CANVAS.replace('"Old.md"', '"\\u6771.md"'))
        assert marks.read_bytes() == cp1252(MARKS.replace('"Old.md"', '"\\u6771.md"'))
        assert drawn.read_bytes() == utf16(DRAWING.replace("[[Old]]", "[[東]]"))
        canvas = await vg.ok("read_canvas", path="Board.canvas")
        assert canvas["nodes"][1]["file"] == "東.md", canvas
        # the tools that rewrite the whole file from what they read
        await vg.ok("add_bookmark", type="file", path="Board.canvas", title="Fête 🎉")
        data = marks.read_bytes()
        assert b'"F\xeate \\ud83c\\udf89"' in data and b"Caf\xe9" in data, data
        listed = await vg.ok("list_bookmarks")
        assert "Fête 🎉" in json.dumps(listed, ensure_ascii=False), listed
        nodes = [{**n, "text": "Crème ☕"} if n["id"] == "t1" else n for n in json.loads(CANVAS)["nodes"]]
        nodes[1]["file"] = "東.md"
        await vg.ok("write_canvas", path="Board.canvas", nodes=nodes, edges=[], expected_etag=canvas["etag"])
        data = board.read_bytes()
        assert b'"Cr\xe8me \\u2615"' in data and b'"\\u6771.md"' in data, data
        assert (await vg.ok("read_canvas", path="Board.canvas"))["nodes"][0]["text"] == "Crème ☕"
        # a plan's move rewrites them in their encoding, and its undo puts back the very bytes
        before = {p: p.read_bytes() for p in (board, marks, drawn, vg.root / ".obsidian/workspace.json")}
        step = {"id": "mv", "tool": "move_note", "args": {"path": "東.md", "new_path": "Über.md"}}
        run = await vg.ok("execute_plan", plan={"goal": "rename", "steps": [step]})
        assert run["status"] == "done", run
        assert b'"\xdcber.md"' in board.read_bytes() and b'"\xdcber.md"' in marks.read_bytes()
        assert drawn.read_bytes() == utf16(DRAWING.replace("[[Old]]", "[[Über]]"))
        await vg.confirmed("undo_last_plan")
        assert {p: p.read_bytes() for p in before} == before


async def test_a_drawing_keeps_its_encoding_and_refuses_what_it_cannot_hold(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Old.md": "old\n", "L.md": cp1252("Café [[Old]]\n")})) as vg:
        await vg.indexed()
        # a move whose new name a linking cp1252 note cannot spell is refused whole, naming both
        error = await vg.err("move_note", "validation_error", path="Old.md", new_path="東.md")
        assert (error["details"]["path"], error["details"]["character"]) == ("L.md", "東"), error
        assert "'L.md'" in error["message"] and "東" in error["message"], error
        assert (vg.root / "Old.md").exists() and not (vg.root / "東.md").exists()
        assert (vg.root / "L.md").read_bytes() == cp1252("Café [[Old]]\n")
        await vg.ok("write_excalidraw", path="Plan", add=[{"type": "text", "x": 0, "y": 0, "text": "Café"}])
        [drawing] = [p for p in vg.root.iterdir() if p.name.endswith(".excalidraw.md")]
        drawing.write_bytes(cp1252(drawing.read_bytes().decode()))  # as a Windows editor would save it
        await vg.ok("write_excalidraw", path="Plan", add=[{"type": "text", "x": 0, "y": 80, "text": "thé"}])
        data = drawing.read_bytes()
        assert b"th\xe9" in data and b"Caf\xe9" in data, data[:400]
        error = await vg.err(
            "write_excalidraw", "validation_error", path="Plan", add=[{"type": "text", "x": 0, "y": 160, "text": "🎉"}]
        )
        assert (error["details"]["reason"], error["details"]["encoding"]) == ("unrepresentable", "cp1252"), error
        assert drawing.read_bytes() == data


async def test_memory_entity_notes_keep_the_encoding(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Old.md": "old\n"})) as vg:
        await vg.indexed()
        entities = [
            {"name": "Ana", "entityType": "person", "observations": ["aime le café"]},
            {"name": "Bo", "entityType": "person", "observations": ["vit à Lyon"]},
        ]
        await vg.ok("create_entities", entities=entities)
        ana, bo = vg.root / "Memory/Ana.md", vg.root / "Memory/Bo.md"
        for note in (ana, bo):
            note.write_bytes(cp1252(note.read_bytes().decode()))
        await vg.ok("add_observations", observations=[{"entityName": "Ana", "contents": ["préfère le thé"]}])
        data = ana.read_bytes()
        assert b"pr\xe9f\xe8re le th\xe9" in data and b"caf\xe9" in data, data
        # all or nothing: Bo's note refuses the emoji, so Ana's change is taken back to its bytes
        error_args = [
            {"entityName": "Ana", "contents": ["boit du maté"]},
            {"entityName": "Bo", "contents": ["fête 🎉"]},
        ]
        error = await vg.err("add_observations", "validation_error", observations=error_args)
        assert (error["details"]["reason"], error["details"]["path"]) == ("unrepresentable", "Memory/Bo.md"), error
        assert ana.read_bytes() == data and b"vit \xe0 Lyon" in bo.read_bytes()
        opened = await vg.ok("open_nodes", names=["Ana"])
        assert "préfère le thé" in json.dumps(opened, ensure_ascii=False)
        # a plan's check foresees that refusal, naming Bo's note, as the run would make it
        step = {"id": "obs", "tool": "add_observations", "args": {"observations": error_args}}
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [step]})
        assert checked["valid"] is False, checked
        [failure] = checked["effects"]["failures"]
        assert (failure["code"], failure["path"]) == ("validation_error", "Memory/Bo.md"), failure
        assert "Memory/Bo.md" in checked["problems"][0]["message"], checked
        assert (
            await vg.ok(
                "validate_plan", plan={"goal": "g", "steps": [{**step, "args": {"observations": error_args[:1]}}]}
            )
        )["valid"]
        # merge_observations of a UTF-8 entity's emoji into Bo's cp1252 note: refused, and foreseen saying why
        await vg.ok("create_entities", entities=[{"name": "Cy", "entityType": "person", "observations": ["fête 🎉"]}])
        args = {"entityName": "Bo", "mergedName": "Cy"}
        refused = await vg.err("merge_observations", "validation_error", **args)
        assert refused["details"]["reason"] == "unrepresentable", refused
        step = {"id": "merge", "tool": "merge_observations", "args": args}
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [step]})
        assert checked["valid"] is False and checked["problems"][0]["details"] == refused["details"], checked
        assert refused["message"] in checked["problems"][0]["message"], checked  # the run's own words


async def test_bulk_create_rollback_restores_the_bytes(make_vault: Callable[..., Path]) -> None:
    latin = cp1252("Café\r\n")
    broken = "naïve\n".encode() * 4 + b"\xff cut\n"  # UTF-8 with one broken byte: read as utf-8-replaced
    async with started(make_vault({"L.md": latin, "B.md": broken})) as vg:
        await vg.indexed()
        notes = [
            {"path": "L.md", "content": "new\n"},
            {"path": "B.md", "content": "new\n"},
            {"path": "Sub.md", "content": "a note\n"},
            {"path": "Sub.md/child.md", "content": "under a file of that name\n"},  # fails after the others
        ]
        token = await vg.token_for("bulk_create_notes", notes=notes, overwrite=True)
        result = await vg.call("bulk_create_notes", notes=notes, overwrite=True, elicit_token=token)
        assert result.structured is not None and result.structured["error"]["code"] == "path_invalid", result.structured
        assert (vg.root / "L.md").read_bytes() == latin
        assert (vg.root / "B.md").read_bytes() == broken
        assert not (vg.root / "Sub.md").exists()


PLAN = {
    "goal": "add to a cp1252 note",
    "steps": [
        {"id": "one", "tool": "append_note", "args": {"path": "L.md", "content": "- crêpe"}},
        {"id": "two", "tool": "append_note", "args": {"path": "L.md", "content": "- fête 🎉"}},
    ],
}


async def test_validate_plan_foresees_an_append_the_encoding_refuses(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"L.md": cp1252("Café\r\n")})) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=PLAN)
        assert checked["valid"] is False, checked
        [problem] = checked["problems"]
        assert (problem["step"], problem["code"]) == ("two", "validation_error"), problem
        [failure] = checked["effects"]["failures"]
        assert (failure["step"], failure["path"], failure["stops"]) == ("two", "L.md", True), failure
        # the run refuses the plan as its check does: nothing written (step one's crêpe neither)
        error = await vg.err("execute_plan", "validation_error", plan=PLAN)
        assert error["details"]["problems"] == checked["problems"], error
        assert (vg.root / "L.md").read_bytes() == cp1252("Café\r\n")
        one = {**PLAN, "steps": PLAN["steps"][:1]}
        assert (await vg.ok("validate_plan", plan=one))["valid"] is True
