"""The changed runs between two lists of lines: always a valid diff (the lines outside the runs
are the same, in the same order, on both sides), at least as many lines kept as difflib keeps
on small inputs, and work that stays near linear where difflib's matcher was cubic: many
paragraphs each given a line (the blank line between them repeats), 100,000 lines all equal,
all different or shuffled."""

from __future__ import annotations

import difflib
import random
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from service.markdown.line_diff import BUDGET, changed_runs
from service.tools.graph_common import diff_lines

LINES = st.lists(st.sampled_from(["", "a", "b", "c", "---", "x y"]), max_size=40)


def _kept(a: Sequence[str], b: Sequence[str], runs: list[tuple[int, int, int, int]]) -> int:
    """How many lines the runs keep, after checking they are a diff of `a` into `b`."""
    i = j = kept = 0
    for i1, i2, j1, j2 in runs:
        assert i <= i1 <= i2 <= len(a) and j <= j1 <= j2 <= len(b) and (i1 < i2 or j1 < j2)
        assert list(a[i:i1]) == list(b[j:j1])  # kept lines between runs
        kept += i1 - i
        i, j = i2, j2
    assert list(a[i:]) == list(b[j:])
    return kept + len(a) - i


def _difflib_kept(a: Sequence[str], b: Sequence[str]) -> int:
    return sum(m.size for m in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_matching_blocks())


@settings(max_examples=300, deadline=None)
@given(LINES, LINES)
def test_small_inputs_keep_at_least_as_many_lines_as_difflib(a: list[str], b: list[str]) -> None:
    assert _kept(a, b, changed_runs(a, b)) >= _difflib_kept(a, b)


@settings(max_examples=300, deadline=None)
@given(LINES, LINES, st.integers(0, 30), st.integers(0, 200))
def test_anchors_bands_and_a_spent_budget_still_give_a_valid_diff(
    a: list[str], b: list[str], cells: int, budget: int
) -> None:
    _kept(a, b, changed_runs(a, b, cells=cells, budget=budget))


def test_diff_lines_lists_runs_as_before() -> None:
    # a line inserted is listed at the number it takes, before empty; a line removed, after empty
    assert [(c.line, c.before, c.after) for c in diff_lines("a\nAcme\nb\n", "a\nAcme\nnew\nb\n")] == [(3, "", "new")]
    assert [(c.line, c.before, c.after) for c in diff_lines("a\nb\nc", "a\nc")] == [(2, "b", "")]
    assert [(c.line, c.before, c.after) for c in diff_lines("x\r\ny\r\n", "x\r\nz\r\nw\r\n")] == [
        (2, "y", "z"),
        (2, "", "w"),
    ]


class _Counted(str):
    """A line that counts its comparisons."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _Counted.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def _compared(a: list[str], b: list[str]) -> tuple[int, list[tuple[int, int, int, int]]]:
    _Counted.compared = 0
    runs = changed_runs([_Counted(x) for x in a], [_Counted(x) for x in b])
    return _Counted.compared, runs


def test_paragraphs_each_given_a_line_are_matched_in_linear_work() -> None:
    before = "\n\n".join(f"Acme paragraph {i} #old" for i in range(2000)).split("\n")
    after = "\n\n".join(f"Acme\nnew paragraph {i} #old" for i in range(2000)).split("\n")
    compared, runs = _compared(before, after)
    assert compared <= 10 * (len(before) + len(after))
    # each paragraph's line became two, the blank lines between them are kept
    assert runs[:2] == [(0, 1, 0, 2), (2, 3, 3, 5)] and len(runs) == 2000
    assert _kept(before, after, runs) == 1999


def test_adversarial_long_inputs_stay_bounded() -> None:
    # 20,000 lines (100,000 take the same work past the first passes: the budget binds)
    n = 20_000
    same = ["x"] * n
    compared, runs = _compared(same, same[:-1])
    assert runs == [(n - 1, n, n - 1, n - 1)] and compared <= 2 * n
    lines = [f"l{i}" for i in range(n)]
    shuffled = lines[:]
    random.Random(7).shuffle(shuffled)
    for a, b in (
        (lines, [f"m{i}" for i in range(n)]),  # all different
        (lines, shuffled),
        (["x", "y"] * (n // 2), ["y", "x"] * (n // 2)),  # every line repeats
    ):
        compared, runs = _compared(a, b)
        _kept(a, b, runs)
        assert compared <= BUDGET + 10 * n  # the budget's table cells and a few passes over the lines


def test_runs_an_edit_knows_are_used_and_checked() -> None:
    a = ["p0", "", "p1", "", "p2"]
    b = ["A", "", "n0", "", "p1", "", "A", "", "n2"]
    # where the edit wrote: p0 -> A, '', n0 and p2 -> A, '', n2 (compared whole: p0 -> A, then n0 and
    # a blank line added before p1, as short but not what was written)
    within = [(0, 1, 0, 3), (4, 5, 6, 9)]
    assert changed_runs(a, b, within) == within != changed_runs(a, b)
    # runs that leave a changed line out are not trusted: the texts are compared whole
    assert changed_runs(a, b, [(0, 1, 0, 3)]) == changed_runs(a, b)
    assert changed_runs(a, b, [(0, 9, 0, 9)]) == changed_runs(a, b)  # past the ends


@settings(max_examples=200, deadline=None)
@given(LINES, LINES, st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=4))
def test_any_runs_given_give_a_valid_diff(a: list[str], b: list[str], cuts: list[tuple[int, int]]) -> None:
    within, i, j = [], 0, 0
    for x, y in sorted(cuts):
        if i <= x <= len(a) and j <= y <= len(b):
            within.append((i, x, j, y))
            i, j = x, y
    _kept(a, b, changed_runs(a, b, within))


def test_every_line_changed_in_place_is_one_run_at_once() -> None:
    # a tag renamed on each of 20,000 lines: no line in common, so nothing is matched (it was cut
    # into bands each matched from a table until the budget ran out, 1.5 s for 100,000 lines)
    n = 20_000
    compared, runs = _compared([f"- item {i} #old" for i in range(n)], [f"- item {i} #new" for i in range(n)])
    assert runs == [(0, n, 0, n)] and compared <= 2 * n
