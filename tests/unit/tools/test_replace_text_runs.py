"""The runs of lines replace_text's matches wrote, which its preview lists: they hold every line
that changed (the lines outside them are the same in the note before and after), so the diff
takes them as they are, in LF and CRLF notes; in a note whose lines end in a lone CR they may
not match the lines the preview counts, and are checked and left for a whole comparison."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from service.markdown.line_diff import _outside_same, changed_runs
from service.tools.notes.replace import ReplaceTextIn, _compiled, _Growth, _replaced

TEXT = st.text(alphabet="ab \n", max_size=60)
FIND = st.sampled_from(["a", "ab", r"b\n", r"\n\n", "^", "$", r"a\nb", "(?:)", r"\s+", r"^b.*$"])
REPLACE = st.sampled_from(["", "x", "\n", "x\n\ny", "\n\n\n", r"\g<0>\n"])


def _run(text: str, find: str, replace: str) -> tuple[str, list[tuple[int, int, int, int]]]:
    args = ReplaceTextIn(find=find, replace=replace, regex=True)
    compiled, _ = _compiled(args)
    changed, _, runs = _replaced("N.md", text, compiled, _Growth(args), time.monotonic() + 5, 5)
    return changed, runs


@settings(max_examples=400, deadline=None)
@given(TEXT, FIND, REPLACE, st.booleans())
def test_the_runs_hold_every_changed_line(text: str, find: str, replace: str, crlf: bool) -> None:
    note = text.replace("\n", "\r\n") if crlf else text
    changed, runs = _run(note, find, replace)
    old, new = note.split("\n"), changed.split("\n")
    assert _outside_same(old, new, runs)
    # the diff is made inside them (they were used, not the whole texts compared)
    for i1, i2, j1, j2 in changed_runs(old, new, runs):
        assert any(a1 <= i1 <= i2 <= a2 and b1 <= j1 <= j2 <= b2 for a1, a2, b1, b2 in runs)


def test_runs_in_a_note_of_lone_crs_are_checked() -> None:
    note = "a\rb\rc\r"  # three lines as Obsidian reads it, one as the preview splits it
    changed, runs = _run(note, "b", "x\n\ny")
    assert changed == "a\rx\r\ry\rc\r"
    assert not _outside_same(note.split("\n"), changed.split("\n"), runs)
    assert changed_runs(note.split("\n"), changed.split("\n"), runs) == [(0, 1, 0, 1)]
