"""A bookmark Obsidian stored in NFD (macOS writes a name as the disk spells it) is the bookmark of
the note vaultgate names in NFC: add_bookmark finds it already there, remove_bookmark removes it."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from pathlib import Path

NFC_NOTE = "R\u00e9sum\u00e9.md"
NFD_NOTE = unicodedata.normalize("NFD", NFC_NOTE)
NFD_FOLDER = unicodedata.normalize("NFD", "Caf\u00e9s")


async def test_a_bookmark_stored_in_nfd_is_the_notes_bookmark(make_vault: Callable[..., Path]) -> None:
    from tests.conftest import started

    stored = {"items": [{"type": "file", "path": NFD_NOTE}, {"type": "folder", "path": NFD_FOLDER}]}
    files = {NFD_NOTE: "# CV\n", f"{NFD_FOLDER}/Menu.md": "# Menu\n", ".obsidian/bookmarks.json": json.dumps(stored)}
    root = make_vault(files)
    async with started(root) as vg:
        err = await vg.err("add_bookmark", "already_exists", type="file", path=NFC_NOTE)
        assert err["code"] == "already_exists", err
        err = await vg.err("add_bookmark", "already_exists", type="folder", path="Caf\u00e9s")
        assert err["code"] == "already_exists", err
        await vg.ok("remove_bookmark", path=NFC_NOTE)
        await vg.ok("remove_bookmark", path="Caf\u00e9s")
        assert (await vg.ok("list_bookmarks"))["items"] == []
    assert json.loads((root / ".obsidian/bookmarks.json").read_text())["items"] == []
