"""read_note by a heading text the note repeats reads the first section, as Obsidian opens a link
to it, and says so (heading_matches: the line of each); a write (patch_note) still answers
ambiguous with the lines.

Before: read_note 'N#Notes' (and heading ['Notes']) of a note with '## Notes' under two parents
answered validation_error reason ambiguous: a link copied from Obsidian (or one of
find_broken_links' suggestions) could not be read, where Obsidian shows the first section (s73
L1's finding, a design choice then). The agent is not silently given one of several: the answer
lists them all, and the heading path reads another."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

NOTE = "# A\n\n## Notes\n\nfirst notes\n\n# B\n\n## Notes\n\nsecond notes\n"
FILLER = "".join(f"filler line {i} with some words\n" for i in range(300))  # ~10 KB: read by its lines


@pytest.mark.parametrize("filler", ["", FILLER], ids=["whole", "by-lines"])
async def test_a_repeated_heading_reads_the_first_section_and_lists_them(
    make_vault: Callable[..., Path], filler: str
) -> None:
    note, at = filler + NOTE, filler.count("\n")  # the filler above the headings: no section holds it
    async with started(make_vault({"N.md": note}), governor={"max_response_bytes": 4096}) as vg:
        for args in ({"path": "N#Notes"}, {"path": "[[N#Notes]]"}, {"path": "N", "heading": ["Notes"]}):
            got = await vg.ok("read_note", **args)
            assert got["content"] == "## Notes\n\nfirst notes\n", args
            assert (got["start_line"], got["heading_matches"]) == (at + 3, [at + 3, at + 9]), args
        other = await vg.ok("read_note", path="N", heading=["B", "Notes"])
        assert other["content"].startswith("## Notes\n\nsecond notes\n") and other["heading_matches"] is None
        assert (await vg.ok("read_note", path="N#A"))["heading_matches"] is None
        [item] = (await vg.ok("read_notes", paths=["N#Notes"]))["items"]
        assert (item["content"], item["heading_matches"]) == ("## Notes\n\nfirst notes\n", [at + 3, at + 9])
        before = vg.snapshot()
        err = await vg.err("patch_note", "validation_error", path="N", heading=["Notes"], content="x\n")
        assert err["details"]["reason"] == "ambiguous" and err["details"]["lines"] == [at + 3, at + 9]
        assert vg.changed_since(before) == set()


async def test_a_heading_repeated_very_often_lists_its_first_lines(make_vault: Callable[..., Path]) -> None:
    """heading_matches lists the first 100 sections' lines: a note repeating '## X' 20,000 times
    answered every line (200,000 made the answer an overflow, and read_notes failed whole; R4, s74)."""
    note = "".join(f"## X\nbody {i}\n" for i in range(20_000))
    async with started(make_vault({"N.md": note})) as vg:
        got = await vg.ok("read_note", path="N#X")
        assert got["content"] == "## X\nbody 0\n"
        assert got["heading_matches"] == [1 + 2 * i for i in range(100)]
        [item] = (await vg.ok("read_notes", paths=["N#X"]))["items"]
        assert item["heading_matches"] == got["heading_matches"]
