"""delete_note, copy_note, move_note and rename_note take a canvas, a base or an attachment as a
link names it, as Obsidian deletes, copies, moves and renames any file.

move_note 'Trip board.canvas' (the canvas by its name with its extension, as `[[Trip board.canvas]]`
names it) answered note_not_found 'no note at Trip board.canvas.md' (only its full path moved it);
delete_note and copy_note refused a canvas or an image even by its path (not_a_note 'an
attachment'): no tool deleted or copied one (U7, s74). A move rewrites the links and embeds to the
file; validate_plan foresees the same files as the calls change; a permanent delete's
confirmation names the file deleted. A note of the name still wins, a folder is still not_a_note,
and hidden folders stay out of reach.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from service.vault.etags import etag_of
from tests.conftest import started, write_files

BOARD = '{"nodes":[{"id":"a","type":"file","file":"Trips/Plan.md","x":0,"y":0,"width":10,"height":10}],"edges":[]}'
HOME = (
    "see [[Trip board.canvas]], [[Boards/Trip board.canvas|the board]], ![[Trip board.canvas]], "
    "![[photo.png|200]] and [spec](Docs/spec.pdf)\n"
)


def _vault(root: Path) -> None:
    write_files(
        root,
        {
            "Boards/Trip board.canvas": BOARD,
            "Trips/Plan.md": "p\n",
            "Home.md": HOME,
            "img/photo.png": "png",
            "Docs/spec.pdf": "pdf",
            "Plan v1.2.md": "the note\n",
        },
    )


@pytest.mark.covers("move_note", "success")
async def test_a_canvas_and_an_image_move_by_their_names_and_their_links_follow(tmp_path: Path) -> None:
    _vault(tmp_path)
    async with started(tmp_path) as vg:
        await vg.indexed()
        step = {"id": "m", "tool": "move_note", "args": {"path": "Trip board.canvas", "new_path": "Archive/"}}
        effects = (await vg.ok("validate_plan", plan={"goal": "g", "steps": [step]}))["effects"]
        assert [(m["from"], m["to"]) for m in effects["files_moved"]] == [
            ("Boards/Trip board.canvas", "Archive/Trip board.canvas")
        ]
        preview = await vg.ok("move_note", path="Trip board.canvas", new_path="Archive/", dry_run=True)
        assert preview["old_path"] == "Boards/Trip board.canvas" and [i["path"] for i in preview["items"]] == [
            "Home.md"
        ]
        out = await vg.confirmed("move_note", path="[[Trip board.canvas]]", new_path="Archive/")
        assert out["path"] == "Archive/Trip board.canvas" and out["files_changed"] == preview["files_changed"]
        assert (tmp_path / "Archive/Trip board.canvas").read_text(encoding="utf-8") == BOARD
        assert vg.read("Home.md") == HOME.replace("[[Boards/Trip", "[[Archive/Trip")  # names still name it
        await vg.ok("rename_note", path="Trip board.canvas", new_path="Trip plan")
        await vg.ok("rename_note", path="photo.png", new_path="cover")
        assert (tmp_path / "Archive/Trip plan.canvas").is_file() and (tmp_path / "img/cover.png").is_file()
        await vg.ok("rename_note", path="spec.pdf", new_path="Specification")
        assert (tmp_path / "Docs/Specification.pdf").is_file()
        assert vg.read("Home.md") == (
            "see [[Trip plan.canvas]], [[Archive/Trip plan.canvas|the board]], ![[Trip plan.canvas]], "
            "![[cover.png|200]] and [spec](Docs/Specification.pdf)\n"
        )
        moved = await vg.ok("rename_note", path="Plan v1.2", new_path="Plan v2")  # a dotted note's name: the note
        assert moved["old_path"] == "Plan v1.2.md" and (tmp_path / "Plan v2.md").is_file()


@pytest.mark.covers("delete_note", "success")
async def test_a_canvas_and_an_image_are_deleted_by_name_or_path(tmp_path: Path) -> None:
    _vault(tmp_path)
    async with started(tmp_path) as vg:
        await vg.indexed()
        step = {"id": "d", "tool": "delete_note", "args": {"path": "Trip board.canvas"}}
        effects = (await vg.ok("validate_plan", plan={"goal": "g", "steps": [step]}))["effects"]
        assert effects["files_deleted"] == ["Boards/Trip board.canvas"], effects
        stale = await vg.call("delete_note", path="Trip board.canvas", expected_etag="0" * 16)
        assert stale.is_error and stale.structured is not None
        assert stale.structured["error"]["details"]["path"] == "Boards/Trip board.canvas", stale.structured
        etag = etag_of(BOARD.encode())
        out = await vg.ok("delete_note", path="Trip board.canvas", expected_etag=etag)
        assert out["path"] == "Boards/Trip board.canvas" and out["title"] == "Trip board"
        assert not (tmp_path / "Boards/Trip board.canvas").exists()
        assert (tmp_path / out["trash_path"]).read_text(encoding="utf-8") == BOARD
        first = await vg.call("delete_note", path="![[photo.png]]", permanent=True)
        assert first.is_error and first.structured is not None
        error = first.structured["error"]
        assert error["code"] == "elicit_required" and "delete img/photo.png" in error["details"]["preview"], error
        out = await vg.confirmed("delete_note", path="![[photo.png]]", permanent=True)
        assert out["path"] == "img/photo.png" and out["permanent"] and not (tmp_path / "img/photo.png").exists()
        out = await vg.ok("delete_note", path="Docs/spec.pdf")
        assert out["path"] == "Docs/spec.pdf" and not (tmp_path / "Docs/spec.pdf").exists()
        assert vg.read("Home.md") == HOME  # links are left as written, as Obsidian does
        await vg.settled()
        assert (await vg.ok("get_backlinks", path="Home"))["items"] == []


@pytest.mark.covers("delete_note", "failure")
async def test_file_tools_still_refuse_folders_hidden_files_and_unknown_names(tmp_path: Path) -> None:
    _vault(tmp_path)
    write_files(tmp_path, {".obsidian/app.json": "{}"})
    async with started(tmp_path) as vg:
        await vg.indexed()
        before = vg.snapshot()
        await vg.err("delete_note", "not_a_note", path="Boards")
        await vg.err("delete_note", "acl_denied", path=".obsidian/app.json")
        await vg.err("copy_note", "acl_denied", path=".obsidian/app.json", new_path="app.json")
        error = await vg.err("delete_note", "note_not_found", path="Trip bord.canvas")
        assert error["details"]["path"] == "Trip bord.canvas.md"
        await vg.err("move_note", "note_not_found", path="nothing.png", new_path="Archive/")
        await vg.err("copy_note", "validation_error", path="Trip board.canvas", new_path="Board.md")
        await vg.err("delete_note", "validation_error", path="Trip board.canvas#x")
        assert vg.changed_since(before) == set()


@pytest.mark.covers("copy_note", "success")
async def test_a_canvas_and_an_image_are_copied_keeping_their_extension(tmp_path: Path) -> None:
    _vault(tmp_path)
    async with started(tmp_path) as vg:
        await vg.indexed()
        steps = [
            {"id": "c", "tool": "copy_note", "args": {"path": "Trip board.canvas", "new_path": "Boards/Trip v2"}},
            {"id": "i", "tool": "copy_note", "args": {"path": "photo.png", "new_path": "Copies/"}},
        ]
        effects = (await vg.ok("validate_plan", plan={"goal": "g", "steps": steps}))["effects"]
        assert sorted(effects["files_created"]) == ["Boards/Trip v2.canvas", "Copies/photo.png"], effects
        out = await vg.ok("copy_note", path="Trip board.canvas", new_path="Boards/Trip v2")
        assert out["path"] == "Boards/Trip v2.canvas" and out["title"] == "Trip v2" and out["created"]
        assert (tmp_path / "Boards/Trip v2.canvas").read_text(encoding="utf-8") == BOARD
        out = await vg.ok("copy_note", path="[[photo.png]]", new_path="Copies/")
        assert out["path"] == "Copies/photo.png" and (tmp_path / "Copies/photo.png").read_text() == "png"
        await vg.settled()
        canvas = await vg.ok("read_canvas", path="Boards/Trip v2.canvas")
        assert [n["id"] for n in canvas["nodes"]] == ["a"]
