"""A block id on a line of its own after a loose list names the whole list. Markdown reads a list
whose items are apart by blank lines (or whose item holds an indented paragraph after one) as one
list, one block, and Obsidian names the block above a lone `^id` (its help: the id of a list goes
on a separate line after the list): `- a`, blank, `- b`, blank, `^loose` is both items. Before,
read_note 'L#^loose' answered from the last item only (the run of lines above the blank line),
get_outline's start_line said so and patch_note replace of that block left the first items. A
different marker at the margin starts another list (`- x`, blank, `* y`: the id names `* y`), a
paragraph ends the list, and a list right under a paragraph is its own block."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

LOOSE = "- a\n\n- b\n  more b\n\n^loose\n"
ORDERED = "1. one\n\n\n2. two\n\n^ordered\n"
DEEP = "- p\n\n  indented para of p\n\n  - sub\n\n^deep\n"
OTHER = "* y\n\n^other\n"
UNDER = "- item right under text\n\n^under\n"
FENCE = "```\n- in code\n```\n\n^fence\n"  # a fence after a list is its own block, its lines no items
NOTE = (
    "# L\n\n"
    + LOOSE
    + "\npara\n\n"
    + ORDERED
    + "\n"
    + DEEP
    + "\n- x\n\n"
    + OTHER
    + "\ntext\n"
    + UNDER
    + "\n- gone\n\nplain paragraph\n\n^plain\n\n- before\n\n"
    + FENCE
)
PARTS = {
    "loose": LOOSE,
    "ordered": ORDERED,
    "deep": DEEP,
    "other": OTHER,
    "under": UNDER,
    "plain": "plain paragraph\n\n^plain\n",
    "fence": FENCE,
}
FILLER = "".join(f"filler line {i} with some words\n" for i in range(300))  # ~10 KB: read by its lines


@pytest.mark.parametrize("filler", ["", FILLER], ids=["whole", "by-lines"])
async def test_an_id_after_a_loose_list_names_the_list(make_vault: Callable[..., Path], filler: str) -> None:
    note = NOTE + "\n" + filler
    lines = note.split("\n")
    async with started(make_vault({"L.md": note}), governor={"max_response_bytes": 4096}) as vg:
        outline = {b["id"]: b for b in (await vg.ok("get_outline", path="L"))["blocks"]}
        for block, part in PARTS.items():
            got = await vg.ok("read_note", path=f"L#^{block}")
            assert got["content"] == part, (block, got["content"])
            first = lines.index(part.split("\n")[0]) + 1
            assert (got["start_line"], got["end_line"]) == (first, first + part.count("\n") - 1), block
            assert (outline[block]["start_line"], outline[block]["line"]) == (got["start_line"], got["end_line"])


async def test_patch_note_replaces_the_whole_loose_list(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"L.md": NOTE})) as vg:
        await vg.ok("patch_note", path="L", block="loose", position="replace", content="- only\n")
        assert vg.read("L.md").startswith("# L\n\n- only\n\n^loose\n\npara\n")
