"""A text property of several lines is written as Obsidian writes it: a literal block (`|-`, `|`,
`|+`), in a list too, not a double-quoted "a\\nb" (B1, session 76; H3 s75 left it). Obsidian's
writer (eemeli/yaml, no line folding) double-quotes a text only when a block cannot hold it: a
control character (a CR: 'a\\r\\nb'), a last line of blanks only. The values read back identical,
through get_properties (ruamel) and through the index (libyaml), in a note with CRLF lines too,
and an edit of another property keeps the block as it is."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

HOSTILE = {
    "summary": "First line\nsecond: line\n# not a comment\n---\n\ttab and trailing blank \n...",
    "steps": ["one", "two\nlines", "three\n"],
    "kept": "a\nb\n\n",
    "lead": "  two spaces\nx",
    "tabbed": "\tfirst\nsecond",
    "crlf": "a\r\nb",
    "blank_end": "x\n  ",
    "one": "a: b #c",
}
WRITTEN = (
    "---\n"
    "summary: |-\n  First line\n  second: line\n  # not a comment\n  ---\n  \ttab and trailing blank \n  ...\n"
    "steps:\n  - one\n  - |-\n    two\n    lines\n  - |\n    three\n"
    "kept: |+\n  a\n  b\n\n"
    "lead: |-2\n    two spaces\n  x\n"
    "tabbed: |-2\n  \tfirst\n  second\n"
    'crlf: "a\\r\\nb"\n'
    'blank_end: "x\\n  "\n'
    'one: "a: b #c"\n'
    "---\n# Bare\n"
)


async def test_multiline_text_is_a_literal_block_and_reads_back(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Bare.md": "# Bare\n"})) as vg:
        await vg.indexed()
        await vg.ok("set_properties", path="Bare", properties=HOSTILE)
        assert vg.read("Bare.md") == WRITTEN
        assert (await vg.ok("get_properties", path="Bare"))["properties"] == HOSTILE
        await vg.settled()
        for key in ("summary", "kept", "lead", "tabbed", "crlf", "blank_end"):
            out = await vg.ok("property_values", key=key)
            assert [i["value"] for i in out["items"]] == [HOSTILE[key]], (key, out)
        await vg.ok("set_properties", path="Bare", properties={"rating": 3})
        assert vg.read("Bare.md") == WRITTEN.replace("---\n# Bare", "rating: 3\n---\n# Bare")


async def test_a_block_in_a_crlf_note_keeps_the_notes_line_ends(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Win.md": "---\r\nx: 1\r\n---\r\n# Win\r\n"})) as vg:
        await vg.ok("set_properties", path="Win", properties={"summary": "a\nb"})
        assert (vg.root / "Win.md").read_bytes() == b"---\r\nx: 1\r\nsummary: |-\r\n  a\r\n  b\r\n---\r\n# Win\r\n"
        assert (await vg.ok("get_properties", path="Win"))["properties"] == {"x": 1, "summary": "a\nb"}
