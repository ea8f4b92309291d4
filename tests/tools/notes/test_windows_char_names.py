"""Notes whose names hold a character Windows reserves (`<`, `>`, `"`, `?`, `*`) through the
dispatch chain. Vaults kept on Linux or macOS hold them (a real zettelkasten: `A* Pathfinding.md`,
`Racket equal?.md`, `Geometry <= Algebra Theorem.md`); every tool answered path_invalid 'reserved
character' for them, so a note search_text listed could not be read, and rename_tag over the
vault failed whole on the first such note holding the tag. They are read, edited, moved away from
and deleted now; creating such a name is still refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import snapshot, started

NOTES = {
    "Programming/A* Pathfinding.md": "---\ntags:\n  - calculus\n---\nSee [[Racket equal?]].\n",
    "Programming/Racket equal?.md": "---\ntags:\n  - calculus\n---\n# Racket equal?\n\nCompares.\n",
    'Math/Geometry <= "Algebra".md': "---\ntags:\n  - calculus\n---\nA theorem.\n",
    "Math/Limits.md": "---\ntags:\n  - calculus\n---\nSee [[A* Pathfinding]].\n",
}


async def test_existing_notes_with_windows_reserved_characters_are_read_and_edited(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(NOTES)
    async with started(root) as vg:
        await vg.indexed()
        found = await vg.ok("search_text", query="title:pathfinding")
        assert [i["path"] for i in found["items"]] == ["Programming/A* Pathfinding.md"]
        assert (await vg.ok("read_note", path=found["items"][0]["path"]))["content"].endswith("[[Racket equal?]].\n")
        section = await vg.ok("read_note", path="Racket equal?#Racket equal?")
        assert section["content"] == "# Racket equal?\n\nCompares.\n"
        assert (await vg.ok("note_info", path='Geometry <= "Algebra"'))["path"] == 'Math/Geometry <= "Algebra".md'
        backlinks = await vg.ok("get_backlinks", path="A* Pathfinding")
        assert [b["path"] for b in backlinks["items"]] == ["Math/Limits.md"]
        await vg.ok("append_note", path="Racket equal?", content="More.")
        assert vg.read("Programming/Racket equal?.md").endswith("Compares.\nMore.")
        renamed = await vg.confirmed("rename_tag", old="calculus", new="math/calculus", dry_run=False)
        assert renamed["files_changed"] == 4, renamed
        assert "  - math/calculus\n" in vg.read('Math/Geometry <= "Algebra".md')
        await vg.confirmed("move_note", path="A* Pathfinding", new_path="Archive/A* Pathfinding")
        assert vg.read("Math/Limits.md").endswith("See [[A* Pathfinding]].\n")  # the name still resolves
        assert (await vg.ok("read_note", path="A* Pathfinding"))["path"] == "Archive/A* Pathfinding.md"
        await vg.ok("delete_note", path="Racket equal?")
    assert not (root / "Programming/Racket equal?.md").exists()
    assert (root / ".trash/Programming/Racket equal?.md").exists()


@pytest.mark.parametrize("name", ["What?", "A* Search", "x < y", 'say "hi"'])
async def test_a_new_name_with_a_windows_reserved_character_is_refused(
    make_vault: Callable[..., Path], name: str
) -> None:
    root = make_vault({"P/Plan.md": "# Plan\n"})
    before = {k: v for k, v in snapshot(root.parent).items() if ".vaultgate" not in k}
    async with started(root) as vg:
        for tool, args in (
            ("create_note", {"path": f"N/{name}", "content": "x"}),
            ("create_folder", {"path": f"N/{name}"}),
            ("move_note", {"path": "P/Plan", "new_path": f"P/{name}"}),
            ("copy_note", {"path": "P/Plan", "new_path": f"P/{name}"}),
        ):
            error = await vg.err(tool, "path_invalid", **args)
            assert error["details"]["reason"] == "reserved character", (tool, error)
            assert "pick a name without them" in error["hint"], (tool, error)
    after = {k: v for k, v in snapshot(root.parent).items() if ".vaultgate" not in k}
    assert after == before


@pytest.mark.parametrize("path", ["Inbox/Time: 10", "Inbox/Draft|final"])
async def test_a_colon_or_pipe_in_a_name_says_what_to_do(make_vault: Callable[..., Path], path: str) -> None:
    """The refusal's hint was 'Use a relative path inside the vault with forward slashes', for a
    path that had none wrong."""
    root = make_vault({"P/Plan.md": "# Plan\n"})
    async with started(root) as vg:
        for tool, args in (
            ("create_note", {"path": path, "content": "x"}),
            ("move_note", {"path": "P/Plan", "new_path": path}),
        ):
            error = await vg.err(tool, "path_invalid", **args)
            assert error["details"]["reason"] == "reserved character", (tool, error)
            assert "pick a name without them" in error["hint"] and "forward slashes" not in error["hint"], error
    assert not (root / "Inbox").exists()
