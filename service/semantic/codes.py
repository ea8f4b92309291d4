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
    """int8 codes: row n is `codes_of(vector n) / steps`, rounded and clipped to +-127."""

    basis: Basis
    steps: Array  # (CODE_DIM,) float32: the value of one unit on each axis
    rows: Array  # (rows, CODE_DIM) int8, C order

    def nbytes(self) -> int:
        return int(self.rows.nbytes + self.steps.nbytes + self.basis.centre.nbytes + self.basis.axes.nbytes)


BLOCK = 16_384  # rows converted to float32 at a time (8 MB of 128 axes): no float copy of every code


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


COARSE_AXES = 64  # the leading axes a first look at every row uses when `small_candidates` refines


def small_estimates(
    small: Small, query: Array, axes: int | None = None, at: Array | None = None, skip: int = 0
) -> Array:
    """As `estimates`, from int8 codes: the query's projection carries each axis's step, and the
    codes are widened to float32 one `BLOCK` at a time. `axes`: only the leading ones (most
    variance first), past the first `skip`; `at`: only those rows. Estimates on axes [0, a) and
    [a, all) add up to the estimate on every axis.

    Each block is widened into one reused buffer and multiplied by BLAS (`matmul`), which the
    server runs on one thread (`OPENBLAS_NUM_THREADS`, service/__main__.py): at 583,081 rows the
    leading 64 axes took 11.5 ms through a fresh array per block and `einsum`, 5.8 ms so. Rows
    `at` are gathered 8 axes at a time (`_gather`)."""
    use = small.basis.axes.shape[1] if axes is None else min(axes, small.basis.axes.shape[1])
    q = np.asarray(query, dtype=np.float32).reshape(-1) @ small.basis.axes[:, skip:use]
    q = np.ascontiguousarray(q * small.steps[skip:use], dtype=np.float32)
    count = len(small.rows) if at is None else len(at)
    out = np.empty(count, dtype=np.float32)
    wide = np.empty((min(BLOCK, count), use - skip), dtype=np.float32)
    for start in range(0, count, BLOCK):
        stop = min(count, start + BLOCK)
        part = small.rows[start:stop, skip:use] if at is None else _gather(small.rows, at[start:stop], skip, use)
        np.copyto(wide[: stop - start], part, casting="unsafe")
        np.matmul(wide[: stop - start], q, out=out[start:stop])
    return out


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
