"""A note whose file name holds '|', made by another program on Linux or macOS (legal there;
Obsidian refuses it in names it creates, since `[[A|B]]` is note A shown as B). The index listed
it and search_text found it, but read_note took `Odd|pipe` for note 'Odd' shown as 'pipe'
(note_not_found, suggesting the very path it had refused), every other tool answered path_invalid
'reserved character', and rename_tag over the vault failed whole on it (s82). Like ':' (see
test_colon_names): read, edited, moved away from; never created."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

pytestmark = pytest.mark.skipif(os.name == "nt", reason="'|' cannot be in a file name on Windows")

NAME = "Themes/Odd|pipe.md"
FILES = {
    NAME: "---\ntags:\n- placeholder/author\n---\n# Odd pipe\n\nA dark theme.\n",
    "Themes/Minimal.md": "---\ntags:\n- placeholder/author\n---\n# Minimal\n\nSee [[Themes/Minimal|itself]].\n",
    "Bar|folder/Inside.md": "# Inside\n\nin a folder with a bar\n",
}


async def test_a_note_named_with_a_pipe_is_read_edited_retagged_and_moved_away(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(FILES)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        assert (await vg.ok("search_text", query="dark theme"))["items"][0]["path"] == NAME
        for address in (NAME, "Themes/Odd|pipe"):  # with and without '.md'
            assert (await vg.ok("read_note", path=address))["path"] == NAME
        assert (await vg.ok("note_info", path=NAME))["path"] == NAME
        assert (await vg.ok("read_note", path="Bar|folder/Inside"))["path"] == "Bar|folder/Inside.md"
        # 'Note|shown' still names the note, as a link does, where no file is named so
        assert (await vg.ok("read_note", path="Themes/Minimal|itself"))["path"] == "Themes/Minimal.md"
        await vg.ok("append_note", path="Themes/Odd|pipe", content="More.")
        assert vg.read(NAME).endswith("A dark theme.\nMore.")
        done = await vg.confirmed("rename_tag", old="placeholder", new="todo/fill", dry_run=False)
        assert done["files_changed"] == 2
        assert vg.read(NAME).startswith("---\ntags:\n- todo/fill/author\n---\n")
        moved = await vg.ok("move_note", path=NAME, new_path="Themes/Odd pipe.md")
        assert moved["path"] == "Themes/Odd pipe.md" and not (root / NAME).exists()
        # a new note in an existing folder named with '|' is made where the path says
        made = await vg.ok("create_note", path="Bar|folder/New", content="x")
        assert made["path"] == "Bar|folder/New.md" and (root / "Bar|folder/New.md").is_file()


@pytest.mark.parametrize("path", ["Themes/Q|A", "[[Q|A]]", "New|folder/x", "Themes/Q|A.md"])
async def test_a_new_name_with_a_pipe_is_refused_and_nothing_is_made(
    make_vault: Callable[..., Path], path: str
) -> None:
    """Before s82 'Q|A' was path_invalid because every path with '|' was; with names holding '|'
    readable, create_note must not make 'Q.md' (the part before the bar) instead."""
    root = make_vault(FILES)
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".vaultgate" not in p.parts)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        for tool, args in (
            ("create_note", {"path": path, "content": "x"}),
            ("write_note", {"path": path, "content": "x", "mode": "create"}),
            ("move_note", {"path": "Themes/Minimal", "new_path": path}),
        ):
            refused = await vg.err(tool, "path_invalid", **args)
            assert refused["details"]["reason"] == "reserved character", (tool, refused)
            assert "pick a name" in refused["hint"], (tool, refused)
    after = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".vaultgate" not in p.parts)
    assert after == before
