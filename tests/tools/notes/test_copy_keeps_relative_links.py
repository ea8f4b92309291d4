"""copy_note into another folder keeps the copy's links naming the files the original's links
name, as Obsidian keeps a moved note's links working: a relative Markdown link (`../a.md`) or a
link by a path that names another file from the copy's folder (`sub/img.png`, where that folder
has one too) is rewritten as a move writes it; a link that resolves alike from both folders (`[[a]]`)
is left as written, and so is a link in code; the note's link to itself names the copy. Before,
the copy held the original's bytes: from its new folder `[x](../a.md)` named nothing
(find_broken_links listed it) and the image links showed C/sub/img.png."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NOTE = (
    "---\nup: '[[sub/img.png]]'\n---\n"
    "[x](../a.md) and ![[sub/img.png]] and ![y](sub/img.png) and [[a]] and [[N#Top]]\n"
    "`[x](../a.md)` in code\n"
)
VAULT = {"A/B/N.md": NOTE, "A/a.md": "a\n", "A/B/sub/img.png": b"png", "C/sub/img.png": b"other", "C/D.md": "d\n"}


async def test_a_copy_in_another_folder_keeps_its_links_to_the_same_files(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        out = await vg.ok("copy_note", path="A/B/N.md", new_path="C/N.md")
        assert (out["path"], out["created"]) == ("C/N.md", True)
        assert vg.read("C/N.md") == (
            "---\nup: '[[A/B/sub/img.png]]'\n---\n"
            "[x](../A/a.md) and ![[A/B/sub/img.png]] and ![y](A/B/sub/img.png) and [[a]] and [[N#Top]]\n"
            "`[x](../a.md)` in code\n"
        )
        assert vg.read("A/B/N.md") == NOTE  # the original as it was
        await vg.settled()
        broken = (await vg.ok("find_broken_links"))["items"]
        assert [b for b in broken if b["path"] == "C/N.md" and b["reason"] != "no_heading"] == [], broken
        same = await vg.ok("copy_note", path="A/B/N.md", new_path="A/B/N2.md")  # its own folder: its bytes
        assert same["path"] == "A/B/N2.md" and vg.read("A/B/N2.md") == NOTE
