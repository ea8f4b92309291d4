"""A heading written in NFD (`Cafe` + U+0301: text taken from a macOS file name) is the heading a
caller or a link names in NFC. read_note 'T#Café' answered validation_error 'heading not found'
listing a 'Café' that looked the same, and find_broken_links listed [[T#Café]] as a link into no
heading, suggesting that same-looking 'Café'."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NFD = unicodedata.normalize("NFD", "Café")
NFC = unicodedata.normalize("NFC", "Café")
FILES = {
    "T.md": f"# T\n\n## {NFD} menu\n\nCroissants.\n\n## Other\n\nTea.\n",
    "L.md": f"[[T#{NFC} menu]] [[T#{NFC.upper()} MENU]] [[T#Gone]]\n",
}


async def test_an_nfd_heading_is_found_by_its_nfc_name(make_vault: Callable[..., Path]) -> None:
    assert NFD != NFC
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        section = await vg.ok("read_note", path=f"T#{NFC} menu")
        assert "Croissants." in section["content"] and "Tea." not in section["content"]
        broken = (await vg.ok("find_broken_links", limit=100))["items"]
        assert [(i["path"], i["subpath"], i["reason"]) for i in broken] == [("L.md", "Gone", "no_heading")]
