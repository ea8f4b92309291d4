"""A note named with ':' in a vault kept on Linux or macOS. The Obsidian Hub vault holds
`Themes/RedShift: OLED Blue Light Filter.md`, tagged `#placeholder/author` like 3,392 other notes:
the index had it and search_text listed it, but every tool answered path_invalid 'reserved
character', and rename_tag placeholder -> todo/fill over the vault failed whole on it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

pytestmark = pytest.mark.skipif(os.name == "nt", reason="':' is a drive or a stream on Windows")

NAME = "Themes/RedShift: OLED Blue Light Filter.md"
FILES = {
    NAME: "---\ntags:\n- placeholder/author\n---\n# RedShift: OLED Blue Light Filter\n\nA dark theme.\n",
    "Themes/Minimal.md": "---\ntags:\n- placeholder/author\n---\n# Minimal\n\n"
    "See [[RedShift: OLED Blue Light Filter]].\n",
}


async def test_a_note_named_with_a_colon_is_read_retagged_and_moved_away(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        hit = (await vg.ok("search_text", query="dark theme"))["items"][0]
        assert hit["path"] == NAME
        assert (await vg.ok("read_note", path=NAME))["content"].endswith("A dark theme.\n")
        assert (await vg.ok("note_info", path=NAME))["title"] == "RedShift: OLED Blue Light Filter"
        done = await vg.confirmed("rename_tag", old="placeholder", new="todo/fill", dry_run=False)
        assert done["files_changed"] == 2
        assert vg.read(NAME).startswith("---\ntags:\n- todo/fill/author\n---\n")
        moved = await vg.ok("move_note", path=NAME, new_path="Themes/RedShift - OLED Blue Light Filter.md")
        assert moved["links_rewritten"] == 1
        assert not (root / NAME).exists()
        assert "[[RedShift - OLED Blue Light Filter]]" in vg.read("Themes/Minimal.md")
        # a new name with ':' is still refused, saying what to do
        refused = await vg.err("create_note", "path_invalid", path="Themes/Time: 10", content="x")
        assert refused["details"]["reason"] == "reserved character" and "pick a name" in refused["hint"]
        refused = await vg.err("move_note", "path_invalid", path="Themes/Minimal.md", new_path="Themes/Min: imal.md")
        assert refused["details"]["reason"] == "reserved character"
        assert not (root / "Themes/Time: 10.md").exists() and (root / "Themes/Minimal.md").exists()


async def test_a_note_at_the_root_named_word_colon_space_is_read(make_vault: Callable[..., Path]) -> None:
    """'Book: Title.md' at the vault's root (a flat vault) was refused as 'URL scheme or drive
    letter' although the index listed it: a word and ': ' is a title, never a scheme nor a drive."""
    root = make_vault({"Book: Title.md": "# Book: Title\n\nA colon title.\n", "Index.md": "See [[Book: Title]].\n"})
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        assert (await vg.ok("search_text", query="colon title"))["items"][0]["path"] == "Book: Title.md"
        assert (await vg.ok("read_note", path="Book: Title.md"))["content"].endswith("A colon title.\n")
        assert [b["path"] for b in (await vg.ok("get_backlinks", path="Book: Title"))["items"]] == ["Index.md"]
        refused = await vg.err("read_note", "path_invalid", path="https:x.md")
        assert refused["details"]["reason"] == "URL scheme or drive letter"
