"""A heading or block address in a long note reads only the note's outline (review R2 s64 F11):
read_note by heading, 'Note#Heading', 'Note#^block' and patch_note by heading or block ran
`parse_note` on the whole note in every call (`sections.find_heading` / `find_block`; a 10 MB
note: ~4 s and +144 MB per call), uncapped. Now they read its headings / block ids with
`parse.outline`; the answers are the same. Through the dispatch chain; what reaches the parser is
recorded, no timings.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.markdown import parse, sections
from tests.conftest import started

WITHIN = 60.0
LIMIT = 2048
FILL = "".join(f"- [ ] task {i} with #tag{i % 5} and [[L{i % 7}]] words\n" for i in range(300))  # ~13 KB
# `para ^blk` after a blank line: right under the last item it would continue that item (s72)
BIG = "# Top\n\n```\n## End\n```\n" + FILL + "\npara ^blk\n\n## End\nlast\n> # not a heading\n## After\nx\n"


@pytest.fixture
def parsed_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text handed to the whole-note parser (by the sections helpers too)."""
    sizes: list[int] = []
    real = parse.parse_note

    def recorded(rel: str, text: str) -> parse.ParsedNote:
        sizes.append(len(text))
        return real(rel, text)

    monkeypatch.setattr(parse, "parse_note", recorded)
    monkeypatch.setattr(sections, "parse_note", recorded, raising=False)  # where it was imported
    return sizes


async def test_addresses_in_a_long_note_do_not_parse_it_whole(
    make_vault: Callable[..., Path], parsed_sizes: list[int]
) -> None:
    root = make_vault({"A.md": "# A\n", "Big.md": BIG})
    async with started(root, limits={"max_indexed_note_chars": LIMIT}) as vg:
        await vg.indexed(WITHIN)
        parsed_sizes.clear()
        section = "## End\nlast\n> # not a heading\n"
        assert (await vg.ok("read_note", path="Big", heading=["End"]))["content"] == section
        assert (await vg.ok("read_note", path="Big#End"))["content"] == section
        assert (await vg.ok("read_note", path="Big#^blk"))["content"] == "para ^blk\n"
        missing = await vg.call("read_note", path="Big", heading=["Nope"])
        assert missing.is_error and missing.structured["error"]["details"]["headings"] == ["Top", "End", "After"]
        etag = (await vg.ok("read_note", path="Big"))["etag"]
        out = await vg.ok(
            "patch_note", path="Big", heading=["After"], position="append", content="y", expected_etag=etag
        )
        out = await vg.ok(
            "patch_note", path="Big", block="blk", position="after", content="z", expected_etag=out["etag"]
        )
        assert max(parsed_sizes, default=0) <= LIMIT  # never the whole note
        text = (root / "Big.md").read_text(encoding="utf-8")
        assert text.endswith("## After\nx\n\ny\n") and "para ^blk\n\nz\n\n## End" in text
