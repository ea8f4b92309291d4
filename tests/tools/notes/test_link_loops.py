"""Symlinks that cannot be followed — one pointing at itself, two pointing at each other, a folder
link to itself — sit in the vault (Obsidian leaves them alone; a sync tool or a slip of `ln -s`
makes them). The listing tools walk past them: before, `DirEntry.is_dir` raised ELOOP on such a
link and list_notes, list_folders, list_attachments and bundle_folder failed for the whole vault
with io_error."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


def looped_vault(make_vault: Callable[..., Path]) -> Path:
    root = make_vault({"Home.md": "# Home\n", "Sub/Note.md": "# Note\n", "Sub/pic.png": b"\x89PNG\r\n"})
    os.symlink("loop.md", root / "loop.md")
    os.symlink("b.md", root / "Sub" / "a.md")
    os.symlink("a.md", root / "Sub" / "b.md")
    os.symlink("Loopdir", root / "Loopdir")
    return root


async def test_links_round_a_loop_do_not_fail_the_listings(make_vault: Callable[..., Path]) -> None:
    root = looped_vault(make_vault)
    async with started(root) as vg:
        notes = await vg.ok("list_notes", limit=50)
        assert [i["path"] for i in notes["items"]] == ["Home.md", "Sub/Note.md"]
        sub = await vg.ok("list_notes", folder="Sub", recursive=False)
        assert [i["path"] for i in sub["items"]] == ["Sub/Note.md"]
        folders = await vg.ok("list_folders")
        assert [i["path"] for i in folders["items"]] == ["Sub"]
        attachments = await vg.ok("list_attachments")
        assert [i["path"] for i in attachments["items"]] == ["Sub/pic.png"]
        bundle = await vg.ok("bundle_folder", folder="")
        assert sorted(e["path"] for e in bundle["entries"]) == ["Home.md", "Sub/Note.md"]
        await vg.err("read_note", "note_not_found", path="loop.md")
        await vg.err("append_note", "note_not_found", path="Sub/a.md", content="x")
    assert os.readlink(root / "loop.md") == "loop.md"  # nothing was changed
