"""`Lines` reads as `text.split("\\n")` and `Runs` as a list of 4-tuples (service.markdown.lines_view),
and the changed runs of two texts' line views are those of their split lists, runs known or not."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from service.markdown.line_diff import changed_runs, iter_changed_runs
from service.markdown.lines_view import Lines, Runs
from service.tools.graph_common import diff_lines
from service.tools.notes.replace import _changes

TEXTS = st.lists(st.sampled_from(["a", "b", "", "\n", "\n", "x\n", "\r\n", "---\n"]), max_size=30).map("".join)
INDEX = st.integers(-3, 40)


@settings(max_examples=400, deadline=None)
@given(TEXTS, TEXTS, st.lists(st.tuples(INDEX, INDEX, INDEX, INDEX), max_size=6))
def test_lines_read_as_the_split_list(text: str, other: str, cuts: list[tuple[int, int, int, int]]) -> None:
    lines, split = Lines(text), text.split("\n")
    others, other_split = Lines(other), other.split("\n")
    assert len(lines) == len(split) and list(lines) == split
    assert [lines[i] for i in range(-len(split), len(split))] == split[-len(split) :] + split
    for i, j, k, m in cuts:
        assert list(lines[i:j]) == split[i:j] and list(lines[i:j][1:3]) == split[i:j][1:3]
        assert (lines[i:j] == lines[k:m]) == (split[i:j] == split[k:m])
        assert (lines[i:j] == others[k:m]) == (split[i:j] == other_split[k:m])
        assert (lines[i:j] != others[k:m]) == (split[i:j] != other_split[k:m])
        assert (lines[i:j] == other_split[k:m]) == (split[i:j] == other_split[k:m])
    assert changed_runs(lines, others) == changed_runs(split, other_split)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["k", "w", "w w", ""]), min_size=1, max_size=40), st.data())
def test_replace_texts_changes_are_diff_lines(before_lines: list[str], data: st.DataObject) -> None:
    """replace_text's own diff equals `diff_lines` with the same runs, kept or counted alike."""
    before = "\n".join(before_lines)
    after_lines = [line.replace("w", data.draw(st.sampled_from(["W", "w\nw", ""]))) for line in before_lines]
    after = "\n".join(after_lines)
    runs, shift = Runs(), 0
    for n, (old, new) in enumerate(zip(before_lines, after_lines, strict=True)):
        grown = new.count("\n")
        if old != new:
            runs.append((n, n + 1, n + shift, n + shift + 1 + grown))
        shift += grown
    keep = data.draw(st.sampled_from([None, 0, 100]))
    assert _changes(before, after, runs, keep) == diff_lines(before, after, list(runs), keep)
    assert list(iter_changed_runs(Lines(before), Lines(after), runs)) == changed_runs(
        before.split("\n"), after.split("\n"), list(runs)
    )


def test_runs_read_as_a_list_of_tuples() -> None:
    runs, kept = Runs(), []
    for n in range(50):
        run = (n, n + 10**9, 3 * n, n * 7)
        runs.append(run)
        kept.append(run)
        if n % 3 == 0:
            assert runs.pop() == kept.pop()
    assert list(runs) == kept and len(runs) == len(kept) and runs[-1] == kept[-1] and runs[2:5] == kept[2:5]
