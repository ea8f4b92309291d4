"""A move reads a linking note whose links the index holds cut, whatever its rows say.

e12daa30 made a move skip the linking notes whose index link rows say no link changes. The index
keeps at most `caps.MAX_ROWS` link rows of a note (100,000; `service.indexer.caps`): a note of
100,000 links by name and then one by path to a moved note (600 KB, below the length cap a move
already reads whole) was skipped, its path link left naming the old place, and the preview did
not list it. Here the cap is lowered so the note is small; the same note at the real cap was
checked by hand (100,001 links: the path link left as written on e12daa30)."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.indexer import caps
from tests.conftest import started, write_files


async def test_a_note_whose_links_the_index_cut_is_read_and_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(caps, "MAX_ROWS", 4)
    big = "[[X]]\n" * 4 + "and [[Projects/Alpha/X]]\n"
    write_files(tmp_path, {"Projects/Alpha/X.md": "# X\n", "Big.md": big, "Small.md": "[[X]]\n"})
    async with started(tmp_path) as vg:
        await vg.indexed()
        rows = await vg.app.services.db.fetchall(
            "SELECT l.target_raw FROM links l JOIN notes n ON n.id = l.src_id WHERE n.path = 'Big.md'"
        )
        assert [r[0] for r in rows] == ["X"] * 4  # the premise: the path link is in no row
        preview = await vg.ok("move_note", path="Projects/Alpha/X", new_path="Archive/X", dry_run=True)
        assert [i["path"] for i in preview["items"]] == ["Big.md"]
        assert preview["links_rewritten"] == 1
        out = await vg.confirmed("move_note", path="Projects/Alpha/X", new_path="Archive/X")
        assert out["links_rewritten"] == 1
        assert vg.read("Big.md") == "[[X]]\n" * 4 + "and [[Archive/X]]\n"
        assert vg.read("Small.md") == "[[X]]\n"
