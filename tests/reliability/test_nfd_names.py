"""Names the disk spells in NFD (as macOS writes them, and iCloud or Syncthing bring them over):
such a note is listed, read, edited, searched and moved under its NFC path, and a write never
makes a second, identical-looking name beside it (`service.vault.spelling`)."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NFC_NOTE = "R\u00e9sum\u00e9.md"
NFD_NOTE = unicodedata.normalize("NFD", NFC_NOTE)
NFD_FOLDER = unicodedata.normalize("NFD", "Caf\u00e9")


def _names(folder: Path) -> list[str]:
    """The names in `folder` as the disk spells them (the index's hidden folder left out)."""
    return sorted(name for name in os.listdir(folder) if not name.startswith("."))


async def test_a_note_named_in_nfd_on_disk_is_read_edited_and_searched_under_its_nfc_path(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"Home.md": "# Home\n", NFD_NOTE: "# CV\n\nnfdword here\n"})
    async with started(root) as vg:
        await vg.indexed()
        listed = [item["path"] for item in (await vg.ok("list_notes"))["items"]]
        assert NFC_NOTE in listed and NFD_NOTE not in listed
        for spelling in (NFC_NOTE, NFD_NOTE, "R\u00e9sum\u00e9"):
            assert "nfdword" in (await vg.ok("read_note", path=spelling))["content"]
        hits = await vg.ok("search_text", query="nfdword")
        assert [item["path"] for item in hits["items"]] == [NFC_NOTE]
        await vg.ok("append_note", path=NFC_NOTE, content="appendedword")
        await vg.settled()
        hits = await vg.ok("search_text", query="appendedword")
        assert [item["path"] for item in hits["items"]] == [NFC_NOTE]
        await vg.err("create_note", "already_exists", path=NFC_NOTE, content="second")
    assert _names(root) == sorted(["Home.md", NFD_NOTE])
    assert (root / NFD_NOTE).read_text(encoding="utf-8").endswith("appendedword")


async def test_a_note_created_in_a_folder_named_in_nfd_lands_in_that_folder(make_vault: Callable[..., Path]) -> None:
    root = make_vault({f"{NFD_FOLDER}/Note.md": "# Note\n"})
    async with started(root) as vg:
        await vg.err("create_note", "already_exists", path="Caf\u00e9/Note.md", content="twin")
        await vg.ok("create_note", path="Caf\u00e9/Other.md", content="# Other\n")
        await vg.ok("move_note", path="Caf\u00e9/Other.md", new_path="Caf\u00e9/Moved.md")
        listed = [item["path"] for item in (await vg.ok("list_notes", folder="Caf\u00e9"))["items"]]
        assert listed == ["Caf\u00e9/Moved.md", "Caf\u00e9/Note.md"]
    assert _names(root) == [NFD_FOLDER]
    assert _names(root / NFD_FOLDER) == ["Moved.md", "Note.md"]
