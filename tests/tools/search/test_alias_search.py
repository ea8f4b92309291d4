"""A note is found by its aliases. On a real zettelkasten (13,415 notes, 3,441 with aliases, most of
them acronyms written nowhere else in the note) `search_text "SAR"` listed only an assembly note
mentioning the `sar` instruction, not `Security Architecture Review.md` (alias `SAR`), and
`robustness principle` fell back to any-word matches without `Postel's Law.md` (alias `Robustness
Principle`): the full-text title held the file name and the H1, never the aliases. Migration 0029
reads the notes with aliases of an index built before again."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

FILES = {
    "Security Architecture Review.md": "---\ntags:\n  - security\naliases:\n  - SAR\n---\n"
    "An interview with the client to define the scope.\n",
    "Postel's Law.md": "---\naliases:\n  - Postel's Principle\n  - Robustness Principle\n---\n"
    "*Be conservative in what you send, be liberal in what you accept.*\n",
    "Programming/NASM.md": "# NASM\n\n|sar|shift arithmetic right|\n",
    "Fence.md": "# Fence\n\nWe require robust fencing; the principle of layers.\n",
    "Vehicle.md": "---\naliases: Car, Automobile\n---\nA thing that moves.\n",
}


def paths(out: dict[str, Any]) -> list[str]:
    return [i["path"] for i in out["items"]]


async def _found_by_aliases(vg: Harness) -> None:
    assert paths(await vg.ok("search_text", query="SAR")) == ["Security Architecture Review.md", "Programming/NASM.md"]
    principle = await vg.ok("search_text", query="robustness principle")
    assert principle["match"] == "all" and paths(principle) == ["Postel's Law.md", "Fence.md"]
    assert paths(await vg.ok("search_text", query="title:automobile")) == ["Vehicle.md"]
    assert paths(await vg.ok("search_notes", query="robustness principle"))[0] == "Postel's Law.md"
    assert paths(await vg.ok("search_vault", query="SAR"))[0] == "Security Architecture Review.md"


async def test_a_note_is_found_by_its_aliases(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        await _found_by_aliases(vg)
        # an edit of the aliases is searched at once; a removed alias no longer finds the note
        await vg.ok("set_properties", path="Security Architecture Review", properties={"aliases": ["SecArch"]})
        await vg.settled()
        assert paths(await vg.ok("search_text", query="secarch")) == ["Security Architecture Review.md"]
        assert paths(await vg.ok("search_text", query="SAR")) == ["Programming/NASM.md"]


async def test_an_index_built_before_finds_notes_by_their_aliases(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.indexed()
        db_path = Path(vg.app.db.path)
    conn = sqlite3.connect(db_path)  # the full-text titles as the indexer before 0029 wrote them
    with conn:
        conn.execute(
            "UPDATE note_text SET title = (SELECT n.title FROM notes n WHERE n.id = note_text.note_id)"
            " WHERE note_id IN (SELECT id FROM notes WHERE aliases != '[]')"
        )
        conn.execute("DELETE FROM schema_migrations WHERE version = 29")
    conn.close()
    async with started(root) as vg:
        await vg.indexed()
        await _found_by_aliases(vg)
