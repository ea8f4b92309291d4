"""Which lines two versions of a note share, in time and memory bounded for any pair of texts.

`changed_runs(a, b)` gives the runs of lines that differ, `(i1, i2, j1, j2)`: `a[i1:i2]` became
`b[j1:j2]`, in order; every line outside them is kept, in the same order on both sides. It
works on one run at a time (at first the whole texts):
- the lines the run starts and ends with on both sides are kept (an edit in one place is done
  after this alone);
- a small run (`CELLS` pairs of lines or fewer) is matched exactly, the longest common
  subsequence from a table;
- a longer one is cut at anchors: the lines found once in each side (patience style), or else
  the lines found as many times in each side, the k-th on one paired with the k-th on the other
  (a blank line between paragraphs, a '---'), of which the longest run in the same order on
  both sides; the runs between anchors go the same way;
- a long run with no anchor is cut into bands along the diagonal, each the table's size;
- a run whose sides have no line in common (every line of a long note changed in place), or
  any run once `BUDGET` units of work (table cells, lines counted) are spent, is one changed
  run, its lines paired by position.
So the work is at most `BUDGET` plus a few passes over the lines, whatever they hold (100,000
lines all equal, all different, or in shuffled order). difflib's matcher, used before, takes
time cubic in the lines when one line repeats (42 s for 1,000 paragraphs each given a line).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

CELLS = 40_000  # pairs of lines in a run matched exactly (the table's size)
BUDGET = 500_000  # units of work per pair of texts before the runs left are paired by position

Run = tuple[int, int, int, int]


def changed_runs(
    a: Sequence[str],
    b: Sequence[str],
    within: Sequence[Run] = (),
    *,
    cells: int = CELLS,
    budget: int = BUDGET,
) -> list[Run]:
    """The runs `(i1, i2, j1, j2)` where `a[i1:i2]` became `b[j1:j2]`, in order (module doc).

    `within`: runs known to hold every change, in order (an edit that knows where it wrote); the
    lines between them are checked to be the same, else the whole texts are compared."""
    return list(iter_changed_runs(a, b, within, cells=cells, budget=budget))


def iter_changed_runs(
    a: Sequence[str],
    b: Sequence[str],
    within: Iterable[Run] = (),
    *,
    cells: int = CELLS,
    budget: int = BUDGET,
) -> Iterator[Run]:
    """`changed_runs` one run at a time: neither `within` nor the answer is held as a list (a
    50 MB note whose 675,000 lines each change held ~125 MB of each as tuples)."""
    known = within if isinstance(within, Sequence) else list(within)
    starts: Iterable[Run] = known if known and _outside_same(a, b, known) else [(0, len(a), 0, len(b))]
    left = budget
    for start in starts:  # each run and the gaps it is cut into, before the next run
        todo = [start]
        while todo:
            alo, ahi, blo, bhi = todo.pop()
            while alo < ahi and blo < bhi and a[alo] == b[blo]:
                alo, blo = alo + 1, blo + 1
            while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
                ahi, bhi = ahi - 1, bhi - 1
            size = (ahi - alo) * (bhi - blo)
            if size <= 1:  # nothing left on a side, or one line that differs from one (what `_table` gives)
                if alo < ahi or blo < bhi:
                    yield (alo, ahi, blo, bhi)
                left -= size if size <= left else 0
                continue
            if size <= cells and size <= left:
                left -= size
                yield from _table(a, b, alo, ahi, blo, bhi)
                continue
            if left < ahi - alo + bhi - blo:
                yield (alo, ahi, blo, bhi)
                continue
            left -= ahi - alo + bhi - blo
            anchors = _anchors(a, b, alo, ahi, blo, bhi)
            if anchors is None:  # not one line in common: nothing to match
                yield (alo, ahi, blo, bhi)
                continue
            gaps: list[Run] = []
            for i, j in anchors:
                gaps.append((alo, i, blo, j))
                alo, blo = i + 1, j + 1
            gaps.append((alo, ahi, blo, bhi))
            if not anchors:  # cut into the fewest runs along the diagonal that fit the table
                gaps = _bands(alo, ahi, blo, bhi, cells)
            todo.extend(reversed(gaps))  # the first gap is worked on (and listed) first


def _outside_same(a: Sequence[str], b: Sequence[str], runs: Iterable[Run]) -> bool:
    i = j = 0
    na, nb = len(a), len(b)
    for i1, i2, j1, j2 in runs:
        if not (i <= i1 <= i2 <= na and j <= j1 <= j2 <= nb) or i1 - i != j1 - j:
            return False
        if i1 > i and a[i:i1] != b[j:j1]:  # runs next to each other leave nothing between them
            return False
        i, j = i2, j2
    return a[i:] == b[j:]


def _bands(alo: int, ahi: int, blo: int, bhi: int, cells: int) -> list[Run]:
    """The run cut into k parts of both sides, each about `cells` pairs (k >= 2, so each is
    smaller): with no anchor, lines are matched near the place they hold in proportion."""
    n, m = ahi - alo, bhi - blo
    k = max(2, math.isqrt(n * m // max(cells, 1)) + 1)
    return [(alo + t * n // k, alo + (t + 1) * n // k, blo + t * m // k, blo + (t + 1) * m // k) for t in range(k)]


def _anchors(
    a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int
) -> list[tuple[int, int]] | None:
    """Pairs (i, j) of lines kept, increasing on both sides: of the lines found once in each side,
    else of those found as many times in each (k-th with k-th), the most in the same order; None
    when the sides have no line in common."""
    in_a, in_b = Counter(a[alo:ahi]), Counter(b[blo:bhi])
    if in_a.keys().isdisjoint(in_b.keys()):
        return None
    unique = {line for line, n in in_a.items() if n == 1 and in_b.get(line) == 1}
    kept = unique or {line for line, n in in_a.items() if in_b.get(line) == n}
    if not kept:
        return []
    if unique:
        at = {line: j for j, line in enumerate(b[blo:bhi], blo) if line in unique}
        return _increasing([(i, at[line]) for i, line in enumerate(a[alo:ahi], alo) if line in unique])
    where: dict[str, list[int]] = {line: [] for line in kept}  # each line's places in b, last first
    for j in range(bhi - 1, blo - 1, -1):
        places = where.get(b[j])
        if places is not None:
            places.append(j)
    pairs = [(i, where[line].pop()) for i, line in enumerate(a[alo:ahi], alo) if line in kept]
    return _increasing(pairs)


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of `pairs` (in increasing i) whose j increase too (patience sorting)."""
    tops: list[int] = []  # the smallest last j of an increasing run of each length
    top_at: list[int] = []  # which pair ends that run
    before: list[int] = []  # each pair's predecessor in its run (-1: none)
    for k, (_, j) in enumerate(pairs):
        at = bisect_left(tops, j)
        before.append(top_at[at - 1] if at else -1)
        if at == len(tops):
            tops.append(j)
            top_at.append(k)
        else:
            tops[at], top_at[at] = j, k
    chain: list[tuple[int, int]] = []
    k = top_at[-1] if top_at else -1
    while k >= 0:
        chain.append(pairs[k])
        k = before[k]
    return chain[::-1]


def _table(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> list[Run]:
    """The changed runs of a[alo:ahi] against b[blo:bhi] keeping a longest common subsequence;
    of equally long ones, lines removed are listed before lines added."""
    xs, ys = list(a[alo:ahi]), list(b[blo:bhi])  # at most `CELLS` pairs: small
    n, m = len(xs), len(ys)
    rows = [[0] * (m + 1) for _ in range(n + 1)]  # rows[i][j]: common lines of xs[i:] and ys[j:]
    for i in range(n - 1, -1, -1):
        x, row, below = xs[i], rows[i], rows[i + 1]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if x == ys[j] else max(below[j], row[j + 1])
    out: list[Run] = []
    i = j = 0
    start: tuple[int, int] | None = None
    while i < n or j < m:
        if i < n and j < m and xs[i] == ys[j]:
            if start is not None:
                out.append((alo + start[0], alo + i, blo + start[1], blo + j))
                start = None
            i, j = i + 1, j + 1
            continue
        if start is None:
            start = (i, j)
        if j == m or (i < n and rows[i + 1][j] >= rows[i][j + 1]):
            i += 1
        else:
            j += 1
    if start is not None:
        out.append((alo + start[0], alo + n, blo + start[1], blo + m))
    return out
