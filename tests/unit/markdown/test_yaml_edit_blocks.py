"""Texts of several lines as literal blocks (`yaml_edit`, B1 session 76): which texts get one,
and a seeded sweep of hostile texts (':', '#', '---', '...', tabs, CRs, blanks, U+2028, U+0085,
quotes, indicators) written as a value, a list item and a nested value, in LF and CRLF notes:
each reads back identical through libyaml (the index) and ruamel (get_properties), the body is
untouched, and an edit of another property leaves its lines as they were."""

from __future__ import annotations

import random

import pytest

from service.markdown import frontmatter as fm
from service.markdown import yaml_edit

PIECES = [*"ab :#-.|>\"'%[]{}!&*?\t\n\n\n", "\r", "\u2028", "\x85", "---", "...", "\r\n", "é", "  ", "- "]


@pytest.mark.parametrize(
    ("text", "block"),
    [
        ("a\nb", True),
        ("a\nb\n\n", True),
        ("  lead\nx", True),
        ("\tfirst\nx", True),
        ("x\n---\n...", True),
        ("trailing \nx", True),
        ("one line", False),
        ("a\r\nb", False),  # a CR: double-quoted, as Obsidian's writer does
        ("x\n  ", False),  # a last line of blanks
        ("\n\n", False),
        ("a\u2028b\nc", False),  # a line break to YAML 1.1
        ("a\x85b\nc", False),
    ],
)
def test_which_texts_are_literal_blocks(text: str, block: bool) -> None:
    assert yaml_edit.literal_block(text) is block


def _set(note: str, value: object) -> str:
    return yaml_edit.edit_frontmatter(note, "N.md", lambda d: d.__setitem__("p", yaml_edit.to_yaml_value(value)))


def test_hostile_texts_read_back_identical() -> None:
    rng = random.Random(76)
    blocks = 0
    for _ in range(120):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 20)))
        nl = rng.choice(["\n", "\r\n"])
        for note in (f"# N{nl}", f"---{nl}x: 1{nl}---{nl}# N{nl}"):
            for value in (text, [text, "z"], {"k": text}):
                written = _set(note, value)
                front = fm.split(written)
                assert front.error is None, (text, written)
                assert front.data["p"] == value == yaml_edit.read(written, "N.md")[0]["p"], (text, written)
                assert written.endswith(f"# N{nl}") and written.count("# N") == 1
                again = yaml_edit.edit_frontmatter(written, "N.md", lambda d: d.__setitem__("q", 2))
                assert again.replace(f"q: 2{nl}", "").replace("q: 2\n", "") == written
                blocks += "p: |" in written or "- |" in written
    assert blocks > 40  # the sweep does reach the blocks
