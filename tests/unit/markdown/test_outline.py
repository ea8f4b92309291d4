"""`parse.outline`: the headings and block ids a heading or block address needs (review R2 s64
F11), read as `parse_note` reads them, without its tags, links, tasks or the note's lines held.
`sections.find_heading` / `find_block` parsed the whole note per call (a 10 MB note: ~4 s and
+180 MB, measured by tracemalloc); the bound here is on memory (deterministic), not time."""

from __future__ import annotations

import tracemalloc

import pytest

from service.markdown import sections
from service.markdown.outline import outline
from service.markdown.parse import parse_note

NOTES = [
    "# A\n\ntext ^one\n## B\n",
    "---\ntitle: x\n# not a heading: YAML\n---\n# Real\nbody ^b1\n",
    "---\nbroken: [\n---\n# After broken YAML\n",
    "---\na: 1\n---",  # the closing fence ends the text
    "# H\n```\n# in code\ntext ^incode\n```\n~~~\n## tilde\n~~~\n## Out\n",
    "> [!note]\n> ```\n> # quoted code\n> ```\n> # quoted heading ^q1\n# Top\n",
    "para\n\n    # indented code\n    ^ind\n\n# After\n",
    "# Use `code # x` here\nline with `^notblock` and ^real\n",
    "# CRLF\r\nline ^crlf\r\n## Two\r\n",
    "<!-- # commented\n^c1 -->\n# Visible #\n- item ^li\n  - [ ] task ^t1\n",
    "#nospace\n####### seven\n#\n# \n#\tTab heading\n",
    "- a\n  ```\n  # fenced under item\n  ```\n# End ^e\n^dup\n^dup\n",
    "",
    "\n\n\n",
    "see [[N#`%%`]] and [[a `b]] `c`\n## After a link holding code ^h1\n%%\n## In a comment\n%%\n",
]


@pytest.mark.parametrize("text", NOTES)
def test_outline_reads_headings_and_blocks_as_parse_note_does(text: str) -> None:
    parsed = parse_note("N.md", text)
    assert outline(text) == (parsed.headings, parsed.block_ids)
    assert outline(text, blocks=False) == (parsed.headings, {})


BIG = (
    "# Top\n"
    + "".join(f"- [ ] task {i} with #tag{i % 50} and [[Link{i % 300}]] words\n" for i in range(20_000))
    + "para ^blk\n## End\nlast\n"
)


def _peak(call: object) -> int:
    tracemalloc.start()
    try:
        assert callable(call)
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_an_address_in_a_long_note_does_not_cost_a_whole_parse() -> None:
    """find_heading holds no more than a small part of the note (whole parse: ~15x its size);
    find_block at most a few times it (the lines it walks back over)."""
    assert sections.find_heading(BIG, ["End"]) == sections.Span(20_002, 20_005, 20_003)
    # `para ^blk` right under a list item continues that item: the block is the item (s72)
    assert sections.find_block(BIG, "blk") == sections.Span(20_000, 20_002, 20_000)
    assert _peak(lambda: sections.find_heading(BIG, ["End"])) < len(BIG) // 4
    assert _peak(lambda: sections.find_block(BIG, "blk")) < 4 * len(BIG)
