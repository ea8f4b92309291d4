"""A block id on a line of its own names the block above it (review s72): Obsidian's help ('Link
to a block in a note') puts the id of a list, quote, callout or table on a separate line after
the block, with a blank line before and after (`> quote`, blank, `^37066f`), and an id under a
list item's continuation line (`- Gemmy` / `    $$…$$` / `    ^37006f`) names that item. Before,
`read_note "Note#^883251"` answered only `"^883251\\n"` and patch_note by that block edited the
id's line. Now the block is the one above, its lines through the id's line; a replace keeps the
id's own line. The `text ^id` form is unchanged. Through the dispatch chain, from a note read
whole and from one read by its lines (longer than an answer may hold).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

QUOTE = "> The quick purple gem dashes.\n> Pen in hand.\n\n^quote1\n"
LIST = "- list item 1\n- list item 2\n\n^my-list\n"
TABLE = "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n^tbl\n"
CALLOUT = "> [!tip] Tip\n> Use display text.\n>\n> Or aliases.\n^callout-tip\n"
ITEM = "- Gemmy\n    $$Paperclip / Pen$$\n    ^gem\n"
NOTE = (
    "---\ntags: [x]\n---\n# Blocks\n\nA paragraph. ^para\n\n"
    + QUOTE
    + "\nThis is the tale of Gemmy.\n\n"
    + LIST
    + "\n"
    + TABLE
    + "\n"
    + CALLOUT
    + "\n"
    + ITEM
    + "- Unhelpful assistant\n\n## Lone\n\n^under-heading\n"
)
PARTS = {
    "quote1": QUOTE,
    "my-list": LIST,
    "tbl": TABLE,
    "callout-tip": CALLOUT,
    "gem": ITEM,
    "para": "A paragraph. ^para\n",
}
FILLER = "".join(f"filler line {i} with some words\n" for i in range(300))  # ~10 KB: read by its lines


@pytest.mark.parametrize("filler", ["", FILLER], ids=["whole", "by-lines"])
async def test_an_id_on_its_own_line_reads_the_block_above_it(make_vault: Callable[..., Path], filler: str) -> None:
    note = NOTE + "\n" + filler
    async with started(make_vault({"B.md": note}), governor={"max_response_bytes": 4096}) as vg:
        await vg.indexed()
        for block, part in PARTS.items():
            for path in (f"B#^{block}", f"[[B#^{block}]]"):
                got = await vg.ok("read_note", path=path)
                assert got["content"] == part, (path, got["content"])
                first = note.split("\n").index(part.split("\n")[0]) + 1
                assert (got["start_line"], got["end_line"]) == (first, first + part.count("\n") - 1), path
        # an id with only a heading above it names its own line, as before
        assert (await vg.ok("read_note", path="B#^under-heading"))["content"] == "^under-heading\n"


async def test_patch_note_by_an_id_on_its_own_line_edits_the_block_above_it(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"B.md": NOTE})) as vg:
        await vg.indexed()
        await vg.ok("patch_note", path="B", block="my-list", position="replace", content="- only item")
        assert "\n\nThis is the tale of Gemmy.\n\n- only item\n\n^my-list\n\n| a | b |" in vg.read("B.md")
        await vg.ok("read_note", path="B#^my-list")
        await vg.ok("patch_note", path="B", block="quote1", position="after", content="After the quote.")
        assert QUOTE + "\nAfter the quote.\n\nThis is the tale" in vg.read("B.md")
        await vg.ok("patch_note", path="B", block="quote1", position="before", content="Before the quote.")
        assert "^para\n\nBefore the quote.\n\n" + QUOTE in vg.read("B.md")
        await vg.ok("patch_note", path="B", block="tbl", position="replace", content="| x |\n| --- |\n| 9 |\n")
        assert "| x |\n| --- |\n| 9 |\n\n^tbl\n" in vg.read("B.md")
        assert (await vg.ok("read_note", path="B#^tbl"))["content"] == "| x |\n| --- |\n| 9 |\n\n^tbl\n"
        await vg.ok("patch_note", path="B", block="callout-tip", position="replace", content="> [!note] New")
        assert "> [!note] New\n^callout-tip\n" in vg.read("B.md")
        await vg.ok("patch_note", path="B", block="para", position="replace", content="New paragraph.")
        assert "# Blocks\n\nNew paragraph. ^para\n\n" in vg.read("B.md")  # the same-line form, as before
        assert (await vg.ok("read_note", path="B#^gem"))["content"] == ITEM
