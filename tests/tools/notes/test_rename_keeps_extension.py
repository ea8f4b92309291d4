"""A file renamed or moved to a name without an extension keeps its own, as Obsidian's rename does.

rename_note of 'Library.base' to 'Lib' (a bare new name, as the tool's description invites and
as a note is renamed: 'Plan v2' is 'Plan v2.md') made a file 'Lib': no base any more (query_base
'Lib' and 'Lib.base' found nothing, Obsidian lists a file it cannot open) and every
`![[Library.base]]` was rewritten to `![[Lib]]`. Found reviewing bfe511e3 / 03134e6f (bases
found by name and written by the note tools). Same for a canvas or an attachment. A new name
with an extension of its own is taken as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import started, write_files

BASE = "views:\n  - type: table\n    name: All\n"
BOARD = '{"nodes":[],"edges":[]}'


@pytest.mark.covers("rename_note", "success")
async def test_a_base_renamed_without_an_extension_stays_a_base(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {"Library.base": BASE, "Home.md": "![[Library.base]] and ![[Board]]\n", "Board.canvas": BOARD, "A.md": "a\n"},
    )
    async with started(tmp_path) as vg:
        await vg.indexed()
        plan = {
            "goal": "g",
            "steps": [{"id": "r", "tool": "rename_note", "args": {"path": "Library.base", "new_path": "Lib"}}],
        }
        effects = (await vg.ok("validate_plan", plan=plan))["effects"]
        assert [(m["from"], m["to"]) for m in effects["files_moved"]] == [("Library.base", "Lib.base")]
        preview = await vg.ok("rename_note", path="Library.base", new_path="Lib", dry_run=True)
        assert preview["moved"] == [{"old_path": "Library.base", "new_path": "Lib.base"}]
        await vg.ok("rename_note", path="Library.base", new_path="Lib")
        assert (tmp_path / "Lib.base").read_text(encoding="utf-8") == BASE and not (tmp_path / "Lib").exists()
        assert vg.read("Home.md") == "![[Lib.base]] and ![[Board]]\n"
        rows = await vg.ok("query_base", path="Lib.base")
        assert "A.md" in [r["values"]["file.name"]["value"] for r in rows["rows"]]
        await vg.ok("rename_note", path="Board.canvas", new_path="Roadmap")
        assert (tmp_path / "Roadmap.canvas").read_text(encoding="utf-8") == BOARD


@pytest.mark.covers("move_note", "success")
async def test_a_moved_file_keeps_its_extension_unless_the_new_name_has_one(tmp_path: Path) -> None:
    write_files(tmp_path, {"Library.base": BASE, "img/photo.png": "png", "img/other.png": "png", "N.md": "n\n"})
    async with started(tmp_path) as vg:
        await vg.indexed()
        await vg.confirmed("move_note", path="Library.base", new_path="Archive/Shelf")
        assert (tmp_path / "Archive/Shelf.base").is_file()
        await vg.ok("rename_note", path="img/photo.png", new_path="pic")
        assert (tmp_path / "img/pic.png").is_file()
        await vg.ok("rename_note", path="img/other.png", new_path="other.jpg")  # an extension of its own: as written
        assert (tmp_path / "img/other.jpg").is_file()
        await vg.ok("rename_note", path="N", new_path="N v1.2")  # a note: '.md' as before
        assert (tmp_path / "N v1.2.md").is_file()


@pytest.mark.covers("copy_note", "success")
async def test_a_dotted_new_name_is_no_extension_of_its_own(tmp_path: Path) -> None:
    """'Films v1.2' for a base: copy_note answered validation_error ('2' taken for an extension)
    while validate_plan said the step creates 'Films v1.2'; rename_note made a file 'Shelf v1.2',
    no base. A dotted name's last part is an extension only when it is one Obsidian opens (or the
    file's own): the base keeps '.base', in the plan's effects, the dry run and the run alike."""
    write_files(tmp_path, {"Library.base": BASE, "img/photo.png": "png", "data.bin": "x", "A.md": "a\n"})
    async with started(tmp_path) as vg:
        await vg.indexed()
        step = {"id": "c", "tool": "copy_note", "args": {"path": "Library.base", "new_path": "Films v1.2"}}
        effects = (await vg.ok("validate_plan", plan={"goal": "g", "steps": [step]}))["effects"]
        assert effects["files_created"] == ["Films v1.2.base"], effects
        out = await vg.ok("copy_note", path="Library.base", new_path="Films v1.2")
        assert out["path"] == "Films v1.2.base" and (tmp_path / "Films v1.2.base").read_text(encoding="utf-8") == BASE
        assert (await vg.ok("query_base", path="Films v1.2"))["views"][0] == "All"
        await vg.err("copy_note", "validation_error", path="Library.base", new_path="Films.png")  # not a base
        step = {"id": "r", "tool": "rename_note", "args": {"path": "Library.base", "new_path": "Shelf v1.2"}}
        effects = (await vg.ok("validate_plan", plan={"goal": "g", "steps": [step]}))["effects"]
        assert [(m["from"], m["to"]) for m in effects["files_moved"]] == [("Library.base", "Shelf v1.2.base")]
        preview = await vg.ok("rename_note", path="Library.base", new_path="Shelf v1.2", dry_run=True)
        assert preview["moved"] == [{"old_path": "Library.base", "new_path": "Shelf v1.2.base"}]
        await vg.ok("rename_note", path="Library.base", new_path="Shelf v1.2")
        assert (tmp_path / "Shelf v1.2.base").is_file() and not (tmp_path / "Shelf v1.2").exists()
        await vg.ok("rename_note", path="img/photo.png", new_path="photo 2026.12.02")
        assert (tmp_path / "img/photo 2026.12.02.png").is_file()
        await vg.ok("rename_note", path="data.bin", new_path="data.v2")  # no format Obsidian opens: as written
        assert (tmp_path / "data.v2").is_file()
