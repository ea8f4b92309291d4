"""A planned link rewrite (`FileEdit`) holds its note's text before and after packed, and gives
both back exactly: an applied hub rename holds every rewritten note until the last is written."""

from __future__ import annotations

import sys

import pytest

from service.graph.moves import FileEdit
from service.graph.rewrite import LineChange


@pytest.mark.parametrize(
    "text",
    ["", "plain\n", "a\r\nb\r\n", "emoji 🧭 and é\n", "lone \udc80 surrogate", "nul \x00 byte", "x" * 100_000],
)
def test_both_texts_come_back_as_they_went_in(text: str) -> None:
    after = text.replace("a", "b") + "[[New]]"
    edit = FileEdit("A.md", "B/A.md", "etag", text, after, [LineChange(1, "a", "b")])
    assert edit.original == text and edit.text == after
    assert (edit.path, edit.new_path, edit.etag, edit.changes) == ("A.md", "B/A.md", "etag", [LineChange(1, "a", "b")])


def test_a_long_note_is_held_in_less_than_its_text() -> None:
    text = "".join(f"- line {i} links [[Hub]] and says something about project {i % 50}\n" for i in range(5_000))
    edit = FileEdit("A.md", "A.md", "etag", text, text.replace("[[Hub]]", "[[Centre]]"), [])
    held = sum(sys.getsizeof(getattr(edit, slot)) for slot in ("_original", "_text"))
    assert held < (sys.getsizeof(text) * 2) / 3
