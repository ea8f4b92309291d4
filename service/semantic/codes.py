"""Compact codes of chunk vectors: the cheap first pass of the exact scan (`vectors.scan_ranking`).

A vault's vectors are centred on their mean and projected onto their `CODE_DIM` principal axes
(a `Basis`, fitted once on up to `FIT_ROWS` of them). A query's similarity to every row is then
estimated from the codes (`CODE_DIM` x 4 bytes a row: a third of a 384-d float32 matrix);
the rows with the best estimates are the candidates the scan rescores exactly. A row's code
depends only on that row and the basis (`codes_of`), so a matrix updated row by row keeps its
codes up to date by coding the new rows with the basis it has; a basis fitted on other vectors
only makes the estimates coarser, never an answer wrong (every answer is rescored exactly).

Why projections and not sign bits: on the 10,000-note workload (59,924 chunks; its 50 queries
and 200 note vectors) the 2,000 best rows by Hamming distance of 384 mean-centred sign bits held
96.6% of the exact top 64 and 84% of the top 400; the 2,000 best by a 96-axis projection held
99.5% and 97.9%, by 128 axes 99.9% and 98.6% for the queries alone, the hardest of them
(docs/benchmarks.md). Touches nothing but the arrays it is given.

`Small` codes are the same projections rounded to one signed byte per axis (each axis its own
step, `fit_steps`): a quarter of the float codes, the first pass of the layout that keeps the
vectors on disk (`service/semantic/vecfile.py`), where the codes are all a vault holds in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

CODE_DIM = 128  # axes kept (of 384: a third of the matrix); codes are used for vectors of 2 x CODE_DIM or more
FIT_ROWS = 8192  # rows the principal axes are fitted on (evenly spaced through the matrix)
COARSE_AXES = 64  # the leading axes of the coarse look at every row (`firstpass.candidates`), held apart (`Small`)

Array = np.ndarray[Any, Any]


@dataclass(frozen=True)
class Basis:
    centre: Array  # (dim,) float32: the mean vector
    axes: Array  # (dim, CODE_DIM) float32: orthonormal columns, most variance first


@dataclass(frozen=True)
class Codes:
    """The codes of a matrix's rows (row n codes row n) with the basis that made them."""

    basis: Basis
    rows: Array  # (rows, CODE_DIM) float32, C order

    def nbytes(self) -> int:
        return int(self.rows.nbytes + self.basis.centre.nbytes + self.basis.axes.nbytes)


def fit(vectors: Array, dim: int = CODE_DIM, sample: int = FIT_ROWS) -> Basis:
    """The mean and the `dim` principal axes of `vectors` (rows), from at most `sample` of them."""
    step = max(1, len(vectors) // sample)
    part = np.asarray(vectors[::step][:sample], dtype=np.float64)
    centre = part.mean(axis=0)
    spread = part - centre
    _, axes = np.linalg.eigh(spread.T @ spread)  # eigenvalues ascending: the last columns lead
    keep = axes[:, ::-1][:, : min(dim, axes.shape[1])]
    return Basis(centre.astype(np.float32), np.ascontiguousarray(keep, dtype=np.float32))


def codes_of(vectors: Array, basis: Basis) -> Array:
    """The codes of `vectors` (rows, or one vector): their offsets from the centre on the axes."""
    # (v - centre) @ axes as v @ axes - centre @ axes: no centred copy of the whole matrix
    out: Array = np.asarray(vectors, dtype=np.float32) @ basis.axes
    out -= basis.centre @ basis.axes
    return np.ascontiguousarray(out)


def build(vectors: Array) -> Codes:
    """A basis fitted on `vectors` and the codes of all of them."""
    basis = fit(vectors)
    return Codes(basis, codes_of(vectors, basis))


def estimates(codes: Codes, query: Array) -> Array:
    """Every row's estimated similarity to `query`, less the same constant (the query's similarity
    to the centre) for all rows: only their order means anything."""
    q = np.asarray(query, dtype=np.float32).reshape(-1) @ codes.basis.axes
    # einsum, not `@`: a matrix-vector product through multi-threaded BLAS waits on its threads
    # (vectors.scan_ranking).
    out: Array = np.einsum("ij,j->i", codes.rows, q)
    return out


@dataclass(frozen=True)
class Small:
    """int8 codes: row n is `codes_of(vector n) / steps`, rounded and clipped to +-127, held as two
    arrays: the leading `COARSE_AXES` axes of every row (`lead`) and the other axes (`rest`). The
    coarse look (`small_estimates` on the leading axes) then streams one contiguous array of 64
    bytes a row, not the first half of every 128-byte row: at 583,081 rows 12-14 ms against
    18-25 ms on this machine (docs/benchmarks.md). Same bytes as one (rows, axes) array."""

    basis: Basis
    steps: Array  # (axes,) float32: the value of one unit on each axis
    lead: Array  # (rows, min(axes, COARSE_AXES)) int8, C order
    rest: Array  # (rows, axes - COARSE_AXES) int8, C order (no columns below COARSE_AXES axes)

    @classmethod
    def of(cls, basis: Basis, steps: Array, rows: Array) -> Small:
        """The codes `rows` ((rows, axes) int8, as `small_of` makes them) split into the two arrays."""
        lead, rest = split(rows)
        return cls(basis, steps, lead, rest)

    @classmethod
    def empty(cls, basis: Basis, steps: Array, count: int) -> Small:
        """Room for `count` rows' codes (filled by `put`): a snapshot's codes allocated ahead."""
        axes = basis.axes.shape[1]
        lead = min(axes, COARSE_AXES)
        return cls(basis, steps, np.empty((count, lead), np.int8), np.empty((count, axes - lead), np.int8))

    def __len__(self) -> int:
        return len(self.lead)

    def head(self, count: int) -> Small:
        """The first `count` rows (views: rows past them may be written by a later snapshot)."""
        return Small(self.basis, self.steps, self.lead[:count], self.rest[:count])

    def put(self, at: int, rows: Array) -> None:
        """Write the codes `rows` ((n, axes) int8) as rows at, at+1, ..."""
        width = self.lead.shape[1]
        self.lead[at : at + len(rows)] = rows[:, :width]
        self.rest[at : at + len(rows)] = rows[:, width:]

    def joined(self, at: Array | None = None) -> Array:
        """Rows `at` (every row when None) as one (n, axes) array, every axis of a row together."""
        if at is None:
            return np.concatenate([self.lead, self.rest], axis=1)
        return np.concatenate([self.lead[at], self.rest[at]], axis=1)

    def nbytes(self) -> int:
        return int(
            self.lead.nbytes + self.rest.nbytes + self.steps.nbytes + self.basis.centre.nbytes + self.basis.axes.nbytes
        )


def split(rows: Array, lead: int | None = None) -> tuple[Array, Array]:
    """(rows, axes) codes as their leading `lead` (default `COARSE_AXES`) axes and the others,
    each one contiguous array."""
    width = min(rows.shape[1], COARSE_AXES if lead is None else lead)
    return np.ascontiguousarray(rows[:, :width]), np.ascontiguousarray(rows[:, width:])


BLOCK = 16_384  # rows coded at a time (`small_of`: 25 MB of float32 at 384 dimensions)
# Rows widened to float32 at a time by `small_estimates`: 2,048 x 64 axes is 512 KB, a buffer
# that stays in a core's cache between the widening and the product (at 583,081 rows 13-14 ms
# against 17-19 with 16,384 rows, whose 4 MB buffer does not).
WIDEN_ROWS = 2048


def fit_steps(sample: Array, basis: Basis) -> Array:
    """One step per axis: the largest offset of `sample`'s rows on it, a little widened, / 127."""
    spread = np.abs(codes_of(sample, basis)).max(axis=0) if len(sample) else np.ones(basis.axes.shape[1])
    steps: Array = (np.maximum(spread, 1e-6) * 1.05 / 127).astype(np.float32)
    return steps


def small_of(vectors: Array, basis: Basis, steps: Array) -> Array:
    """The int8 codes of `vectors` (rows), `BLOCK` rows at a time."""
    rows = np.asarray(vectors)
    out = np.empty((len(rows), basis.axes.shape[1]), dtype=np.int8)
    for at in range(0, len(rows), BLOCK):
        part = codes_of(rows[at : at + BLOCK], basis) / steps
        np.clip(np.rint(part), -127, 127, out=part)
        out[at : at + BLOCK] = part
    return out


def fit_small(vectors: Array, sample: int = FIT_ROWS) -> tuple[Basis, Array]:
    """A basis and steps fitted on at most `sample` rows of `vectors` (evenly spaced)."""
    step = max(1, len(vectors) // sample)
    part = np.asarray(vectors[::step][:sample], dtype=np.float32)
    basis = fit(part, sample=sample)
    return basis, fit_steps(part, basis)


def small_estimates(
    small: Small,
    query: Array,
    axes: int | None = None,
    at: Array | None = None,
    skip: int = 0,
    span: tuple[int, int] | None = None,
    out: Array | None = None,
) -> Array:
    """As `estimates`, from int8 codes: the query's projection carries each axis's step, and the
    codes are widened to float32 `WIDEN_ROWS` rows at a time. `axes`: only the leading ones (most
    variance first), past the first `skip`; `at`: only those rows. Estimates on axes [0, a) and
    [a, all) add up to the estimate on every axis.

    Each block's axes are widened into one reused buffer, in axis order whichever of `lead` and
    `rest` hold them (so the result does not depend on where the codes are split), and multiplied
    by BLAS (`matmul`), which the server runs on one thread (`OPENBLAS_NUM_THREADS`,
    service/__main__.py). Rows `at` are gathered 8 axes at a time (`_gather`). `span`: only rows
    [start, stop) of them (a part of the rows, written to `out` when given): blocks begin at
    `start`, so parts split at a multiple of `WIDEN_ROWS` give each row the estimate, bit for bit,
    of the whole call (`firstpass.coarse`)."""
    width = small.lead.shape[1]
    use = small.basis.axes.shape[1] if axes is None else min(axes, small.basis.axes.shape[1])
    q = np.asarray(query, dtype=np.float32).reshape(-1) @ small.basis.axes[:, skip:use]
    q = np.ascontiguousarray(q * small.steps[skip:use], dtype=np.float32)
    # (array, its first and last axis + 1 used, where they go in the buffer)
    parts = [
        (part, lo - base, hi - base, lo - skip)
        for part, base, lo, hi in ((small.lead, 0, skip, min(use, width)), (small.rest, width, max(skip, width), use))
        if hi > lo
    ]
    first, last = span if span is not None else (0, len(small) if at is None else len(at))
    found = np.empty(last - first, dtype=np.float32) if out is None else out
    wide = np.empty((min(WIDEN_ROWS, last - first), use - skip), dtype=np.float32)
    for start in range(first, last, WIDEN_ROWS):
        stop = min(last, start + WIDEN_ROWS)
        for part, lo, hi, to in parts:
            got = part[start:stop, lo:hi] if at is None else _gather(part, at[start:stop], lo, hi)
            np.copyto(wide[: stop - start, to : to + hi - lo], got, casting="unsafe")
        np.matmul(wide[: stop - start], q, out=found[start - first : stop - first])
    return found


def _gather(rows: Array, at: Array, skip: int, use: int) -> Array:
    """`rows[at, skip:use]`, as whole 8-byte words when the axes allow it: numpy copies a fancy
    index of int8 columns one byte at a time (36,442 rows x 64 axes: 7.2 ms against 1.6)."""
    if skip % 8 or use % 8 or rows.shape[1] % 8 or not rows.flags.c_contiguous or rows.dtype != np.int8:
        picked: Array = rows[at, skip:use]
        return picked
    words: Array = rows.view(np.int64)[at, skip // 8 : use // 8]
    return words.view(np.int8)


def refine_share(rows: int, n: int) -> int | None:
    """How many rows a coarse look (`COARSE_AXES` leading axes) keeps for `n` candidates:
    max(8n, rows/16), or None when that is over half the rows (every axis for every row then).
    At 600,000 rows the coarse look costs half of estimating every row on every axis."""
    keep = max(8 * n, rows // 16)
    return None if keep * 2 > rows else keep


def candidates(estimated: Array, n: int) -> Array:
    """The rows (ascending) of the `n` best estimates (all rows when there are not more)."""
    if n >= len(estimated):
        return np.arange(len(estimated))
    return np.sort(np.argpartition(-estimated, n - 1)[:n])
