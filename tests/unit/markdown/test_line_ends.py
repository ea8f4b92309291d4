"""`service.markdown.line_ends`: an edit sees the lines the readers count (a CR alone ends a line)
and is written back line by line: each line it leaves keeps its own end, a line it changes keeps
the end it had, an inserted line ends as most lines of the note do."""

from __future__ import annotations

from service.markdown import line_ends, sections


def _append_to_b(text: str) -> str:
    return sections.patch_lines(text, sections.find_heading(text, ["B"]), "append", "new\n")


def test_a_crlf_note_with_a_stray_cr_is_edited_by_the_lines_its_readers_count() -> None:
    """`x\\ry` in a CRLF note is two lines to the readers (find_heading's line numbers); the edit's
    text must be split the same way, or it lands a line off. The stray CR, a line the edit leaves,
    stays as it was."""
    note = "# A\r\nx\ry\r\n## B\r\nb\r\n## C\r\n"
    assert line_ends.ending(note) == "\r\n"
    assert line_ends.keeping(_append_to_b)(note) == "# A\r\nx\ry\r\n## B\r\nb\r\n\r\nnew\r\n\r\n## C\r\n"


def test_cr_and_lf_notes_keep_their_ends_and_a_no_op_keeps_the_note() -> None:
    assert line_ends.keeping(_append_to_b)("## B\rb\r") == "## B\rb\r\rnew\r"
    assert line_ends.keeping(_append_to_b)("## B\nb\n") == "## B\nb\n\nnew\n"
    mixed = "## B\nb\rc\n"
    assert line_ends.keeping(_append_to_b)(mixed) == "## B\nb\rc\n\nnew\n"
    assert line_ends.keeping(lambda text: text)(mixed) is mixed
    assert line_ends.lf("a\r\nb\rc") == "a\r\nb\nc" and len(line_ends.lf("a\rb")) == 3


def test_a_cr_before_a_crlf_is_a_line_end_to_the_edit_as_to_the_readers() -> None:
    """In `a\\r\\r\\n` the first CR ends a line for the readers (`lf`: `a\\n\\r\\n`, two lines); the
    edit's LF form counted one (the CR was joined with the CRLF), so edits by line named the line
    below, and the stray CR was dropped from the written note. It is kept now."""
    note = "- [ ] a\r\r\n- [ ] b\r\n"
    assert line_ends.ending(note) == "\r\n" and line_ends.to_lf(note, "\r\n") == "- [ ] a\n\n- [ ] b\n"
    assert line_ends.keeping(lambda text: text.replace("- [ ] b", "- [x] b"))(note) == "- [ ] a\r\r\n- [x] b\r\n"


def test_a_note_mixing_lf_and_lone_crs_keeps_each_line_s_end() -> None:
    """Obsidian reads LF, CRLF and a CR alone each as a line end, in any mix: an edit keeps the end
    of each line it leaves and of a line it changes in place; inserted lines take the most common
    end. Before, every lone CR of a note with an LF was written back as LF."""
    note = "# A\rone\ntwo\rthree\r\n- [ ] t\r## B\nb\rlast"
    tick = line_ends.keeping(lambda text: text.replace("- [ ] t", "- [x] t"))
    assert tick(note) == note.replace("- [ ] t", "- [x] t")
    assert line_ends.keeping(_append_to_b)(note) == "# A\rone\ntwo\rthree\r\n- [ ] t\r## B\nb\rlast\r\rnew"
    removed = line_ends.keeping(lambda text: text.replace("two\n", "").replace("one\n", "one\nx\ny\n"))
    assert removed(note) == "# A\rone\nx\ry\rthree\r\n- [ ] t\r## B\nb\rlast"
    assert line_ends.keeping(lambda text: text + "\n")("a\rb\n") == "a\rb\n\r"


def test_an_edit_of_a_long_mixed_note_pairs_its_many_changed_lines_by_position() -> None:
    """Past `_MATCHED_LINES` pairs of changed lines no matching is tried (bounded time): the changed
    lines take the ends of the old ones at their place, and the lines around keep theirs."""
    lines = [f"l{i}" for i in range(3000)]
    note = "head\r" + "\n".join(lines) + "\rtail\n"
    upper = line_ends.keeping(lambda text: text.replace("l", "L"))
    assert upper(note) == note.replace("l", "L")
