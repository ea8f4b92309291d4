"""The facts of a note longer than `[limits] max_indexed_note_chars` come from what the index
reads of it (review R4 s63 F5): note_info, and read_note's tags and links when the index has no
row for the note, parsed the whole note in every call (a 10 MB note: ~2 s and +134 MB, 100 MB:
22 s), with no cap. Now they parse `caps.kept_text` (at most the limit, cut at a line break):
note_info's words, headings, tags and outlinks count that much and `facts_chars` says how many
characters it is; its size and line count stay the whole note's. A short note is parsed whole
and says nothing more.

Through the dispatch chain with a small limit; what reaches the parser is recorded, no timings.
`[index] watch = false`: a note saved on disk after the start is not indexed, so read_note has
no index row for it and parses it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.markdown import parse
from service.tools.notes import note_facts, read
from tests.conftest import started

WITHIN = 60.0
LIMIT = 2048
EARLY = "# Big\n\nearly words here #early [[A]]\n## One\n"
FILL = "".join(f"filler line {i} of plain words\n" for i in range(200))  # ~6 KB
LATE = "## Two\nlate words #late [[B]] [[C]]\n"
BIG = EARLY + FILL + LATE
KEPT = BIG.rfind("\n", 0, LIMIT) + 1  # what the index reads: up to the last line break within LIMIT


@pytest.fixture
def parsed_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text the note tools hand the parser."""
    sizes: list[int] = []
    real = parse.parse_note

    def recorded(rel: str, text: str) -> parse.ParsedNote:
        sizes.append(len(text))
        return real(rel, text)

    monkeypatch.setattr(read, "parse_note", recorded)
    monkeypatch.setattr(note_facts, "parse_note", recorded)
    return sizes


async def test_note_info_of_a_long_note_parses_what_the_index_reads(
    make_vault: Callable[..., Path], parsed_sizes: list[int]
) -> None:
    root = make_vault({"A.md": "# A\n\nalpha\n", "Big.md": BIG})
    async with started(root, limits={"max_indexed_note_chars": LIMIT}) as vg:
        await vg.indexed(WITHIN)
        info = await vg.ok("note_info", path="Big")
        assert parsed_sizes == [KEPT]
        kept = parse.parse_note("Big.md", BIG[:KEPT])
        assert info["facts_chars"] == KEPT
        assert (info["word_count"], info["heading_count"], info["outlinks"]) == (
            kept.word_count,
            len(kept.headings),
            len(kept.links),
        )
        assert info["tags"] == ["early"] and info["outlinks"] == 1
        assert info["size"] == len(BIG.encode()) and info["line_count"] == BIG.count("\n")  # whole

        parsed_sizes.clear()
        small = await vg.ok("note_info", path="A")
        assert parsed_sizes == [len("# A\n\nalpha\n")] and small.get("facts_chars") is None
        assert small["line_count"] == 3


async def test_read_note_of_a_long_note_without_an_index_row_parses_what_the_index_reads(
    make_vault: Callable[..., Path], parsed_sizes: list[int]
) -> None:
    root = make_vault({"A.md": "# A\n\nalpha\n"})
    async with started(root, limits={"max_indexed_note_chars": LIMIT}, index={"watch": False}) as vg:
        await vg.indexed(WITHIN)
        (root / "Big.md").write_text(BIG, encoding="utf-8")  # not indexed: no watcher
        out = await vg.ok("read_note", path="Big.md")
        assert parsed_sizes == [KEPT]
        assert out["content"] == BIG and out["tags"] == ["early"] and out["links"] == ["A"]
