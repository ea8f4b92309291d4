"""Where a list ends, for the block a lone `^id` after it names (read_note 'L#^id', get_outline's
start_line, patch_note's block): as CommonMark and remark-parse's list rule (what Obsidian reads
notes with, `gfm`, not `commonmark`) agree.

Before: `1. a`, blank, `  - b` (a bullet indented less than the ordered item's text, column 3)
was read as the list going on, where both read a new list (another marker, not inside the item):
'L#^x' answered both lists. `* a` directly followed by `* * *` was one run, the list's, where a
line that can be an item or a thematic break is the break (it ends the list and is a block of its
own): 'L#^x' after it answered the list and the break. A tight list whose next item has another
marker (`- a` then `* b`) is two lists too; a paragraph right under a break ('* * *' then
'text ^x') is its own. Kept: a bullet indented to the ordered item's text is inside it, a sibling
of the list's marker indented less goes on with it, '---' right under a paragraph stays as before
(a setext heading's underline, not read here)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

CASES = {  # the note's text, the block read for ^x
    "ordered then a shallow bullet": ("1. a\n\n  - b\n\n^x\n", "  - b\n\n^x\n"),
    "ten then a bullet at 3": ("10. a\n\n   - b\n\n^x\n", "   - b\n\n^x\n"),
    "star then a break": ("* a\n* * *\n\n^x\n", "* * *\n\n^x\n"),
    "dash then a break": ("- a\n---\n\n^x\n", "---\n\n^x\n"),
    "another marker, tight": ("- a\n* b\n\n^x\n", "* b\n\n^x\n"),
    "a paragraph under a break": ("* a\n* * *\ntext ^x\n", "text ^x\n"),
    "a break under a paragraph": ("text\n***\n\n^x\n", "***\n\n^x\n"),
    # kept
    "ordered then a deep bullet": ("1. a\n\n   - b\n\n^x\n", "1. a\n\n   - b\n\n^x\n"),
    "a sibling indented less": ("1. a\n\n  2. b\n\n^x\n", "1. a\n\n  2. b\n\n^x\n"),
    "a break inside an item": ("- a\n  ***\n\n^x\n", "- a\n  ***\n\n^x\n"),
    "a setext underline": ("text\n---\n\n^x\n", "text\n---\n\n^x\n"),
}
FILLER = "".join(f"filler line {i} with some words\n" for i in range(300))  # ~10 KB: read by its lines


@pytest.mark.parametrize("filler", ["", FILLER], ids=["whole", "by-lines"])
@pytest.mark.parametrize("case", list(CASES))
async def test_a_lone_id_names_the_list_obsidian_reads(make_vault: Callable[..., Path], case: str, filler: str) -> None:
    text, block = CASES[case]
    note = "# L\n\n" + text + "\n" + filler
    first = note.index(block[: block.index("\n")] + "\n")
    start = note[:first].count("\n") + 1
    async with started(make_vault({"L.md": note}), governor={"max_response_bytes": 4096}) as vg:
        got = await vg.ok("read_note", path="L#^x")
        assert got["content"] == block and got["start_line"] == start, got
        [found] = (await vg.ok("get_outline", path="L"))["blocks"]
        assert (found["id"], found["start_line"]) == ("x", start)


async def test_patch_note_replaces_only_the_list_the_id_names(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"L.md": "1. a\n\n  - b\n\n^x\n"})) as vg:
        await vg.ok("patch_note", path="L", block="x", position="replace", content="- c\n")
        assert vg.read("L.md") == "1. a\n\n- c\n\n^x\n"
