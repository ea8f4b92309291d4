"""A user pass of the reading tools with a note named as a person types it: its name alone, no
folder, no '.md', another letter case, NFD Unicode (a macOS client), a wikilink (H3, session 75).

Every read tool that takes a note finds it, or answers note_not_found with the closest note as
details.suggestions. A tool that takes a file that is no note (read_attachment, ocr_attachment)
given a note's bare name answered note_not_found with nothing to go on; it now says which note
the name is (details.note) and that read_note reads it."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

CAFE = unicodedata.normalize("NFC", "Café Menu")
FILES: dict[str, str | bytes] = {
    "Places/Kyoto.md": "# Kyoto\n\n## Food\nsee [[Osaka]] ^b1\n- [ ] visit #trip\n",
    "Places/Osaka.md": "# Osaka\n[[Kyoto]]\n",
    f"Food/{CAFE}.md": "---\ntags: [food]\n---\n# Café\n[[Kyoto]]\n",
}
NAMES = ["kyoto", "KYOTO.md", "places/kyoto", "[[Kyoto]]", unicodedata.normalize("NFD", "café menu")]
TOOLS: list[tuple[str, str, dict[str, Any]]] = [
    ("read_note", "path", {}),
    ("note_info", "path", {}),
    ("get_outline", "path", {}),
    ("get_properties", "path", {}),
    ("get_backlinks", "path", {}),
    ("get_outlinks", "path", {}),
    ("graph_neighbors", "path", {}),
    ("suggest_links", "path", {}),
    ("shortest_path", "source", {"target": "Osaka"}),
    ("list_attachments", "for_note", {}),
    ("list_tasks", "note", {}),
]


@pytest.mark.parametrize(("tool", "field", "more"), TOOLS, ids=[t[0] for t in TOOLS])
async def test_every_read_tool_finds_a_note_by_the_name_a_person_types(
    make_vault: Callable[..., Path], tool: str, field: str, more: dict[str, Any]
) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        for name in NAMES:
            await vg.ok(tool, **{field: name, **more})
        typo = await vg.err(tool, "note_not_found", **{field: "Kyto", **more})
        assert typo["details"]["suggestions"][0] == "Places/Kyoto.md"


@pytest.mark.parametrize("tool", ["read_attachment", "ocr_attachment"])
async def test_a_file_tool_given_a_notes_name_says_which_note_it_is(make_vault: Callable[..., Path], tool: str) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        for name in ("kyoto", "[[Kyoto]]", unicodedata.normalize("NFD", "café menu")):
            error = await vg.err(tool, "note_not_found", path=name)
            assert error["details"]["note"] in ("Places/Kyoto.md", f"Food/{CAFE}.md"), name
            assert "read_note" in error["hint"]
        nothing = await vg.err(tool, "note_not_found", path="Kyto")  # no note either: no note named
        assert "note" not in nothing["details"] and "kind" not in nothing["details"]
