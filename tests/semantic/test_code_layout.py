"""The int8 codes held as two arrays (`codes.Small`: the leading `COARSE_AXES` axes of every row
together, the other axes apart): estimates equal, bit for bit, those of the codes as one array
of whole rows (the layout before), whichever axes and rows are asked; the vector file's checkpoint
keeps the split, and a checkpoint of the earlier format (one array) still restores without a
build from the index."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from service.semantic import codes, vecfile
from tests.semantic.test_vecfile import exact, index, on_disk, queries, ranked, same, unit

Array = np.ndarray[Any, Any]


def one_array_estimates(small: codes.Small, q: Array, axes: int | None, skip: int, at: Array | None) -> Array:
    """`small_estimates` as it was with the codes in one (rows, axes) array: the same blocks of
    widened rows multiplied by the same query projection."""
    rows = small.joined()
    use = rows.shape[1] if axes is None else min(axes, rows.shape[1])
    p = np.ascontiguousarray((q.astype(np.float32) @ small.basis.axes[:, skip:use]) * small.steps[skip:use])
    picked = rows[:, skip:use] if at is None else rows[at, skip:use]
    out = np.empty(len(picked), dtype=np.float32)
    for start in range(0, len(picked), codes.WIDEN_ROWS):
        stop = min(len(picked), start + codes.WIDEN_ROWS)
        np.matmul(picked[start:stop].astype(np.float32), p, out=out[start:stop])
    return out


@pytest.mark.parametrize("axes,skip", [(None, 0), (codes.COARSE_AXES, 0), (None, codes.COARSE_AXES), (70, 3), (40, 8)])
def test_split_codes_estimate_as_the_codes_in_one_array(axes: int | None, skip: int) -> None:
    rng = np.random.default_rng(11)
    matrix = unit(rng.standard_normal((2 * codes.WIDEN_ROWS + 37, 384)))
    basis, steps = codes.fit_small(matrix)
    small = codes.Small.of(basis, steps, codes.small_of(matrix, basis, steps))
    assert small.lead.shape[1] == codes.COARSE_AXES and small.lead.flags.c_contiguous
    assert small.rest.shape[1] == codes.CODE_DIM - codes.COARSE_AXES and small.rest.flags.c_contiguous
    assert np.array_equal(small.joined(), codes.small_of(matrix, basis, steps))
    q = unit(rng.standard_normal(384))
    at = np.sort(rng.permutation(len(matrix))[: codes.WIDEN_ROWS + 9])
    for rows in (None, at):
        got = codes.small_estimates(small, q, axes=axes, skip=skip, at=rows)
        assert np.array_equal(got, one_array_estimates(small, q, axes, skip, rows))


def test_codes_of_fewer_axes_than_the_coarse_look_are_one_array() -> None:
    rng = np.random.default_rng(12)
    rows = rng.integers(-127, 128, (50, 40), dtype=np.int8)
    lead, rest = codes.split(rows)
    assert np.array_equal(lead, rows) and rest.shape == (50, 0)


def as_format_1(checkpoint: Path) -> None:
    """Rewrite a checkpoint as the earlier format wrote it: the codes as one array of whole rows."""
    with np.load(checkpoint, allow_pickle=False) as saved:
        parts = {name: saved[name] for name in saved.files}
    parts["codes"] = np.concatenate([parts.pop("lead"), parts.pop("rest")], axis=1)
    parts["format"] = np.int64(1)
    with open(checkpoint, "wb") as out:
        np.savez(out, **parts)


@pytest.mark.parametrize("earlier", [True, False])
def test_a_checkpoint_restores_its_split_codes_and_one_of_the_earlier_format_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, earlier: bool
) -> None:
    rng = np.random.default_rng(13)
    matrix = unit(rng.standard_normal((3000, 384)) + 2 * rng.standard_normal((3000, 8)) @ rng.standard_normal((8, 384)))
    conn: sqlite3.Connection = index(tmp_path / "cache.db", matrix)
    folder = tmp_path / "vectors"
    first = on_disk(folder)
    ranked(conn, first, matrix[3], 10)
    held = first.matrix(conn, "v", "m").small
    assert held is not None
    first.close()
    (checkpoint,) = folder.glob("*.npz")
    if earlier:
        as_format_1(checkpoint)
    built: list[int] = []
    real = vecfile.build
    monkeypatch.setattr(vecfile, "build", lambda *a: built.append(1) or real(*a))
    again = on_disk(folder)
    for q in queries(rng, matrix):
        same(ranked(conn, again, q, 64), exact(conn, q, 64))
    assert built == []
    restored = again.matrix(conn, "v", "m").small
    assert restored is not None
    assert np.array_equal(restored.lead, held.lead) and np.array_equal(restored.rest, held.rest)
    late = unit(rng.standard_normal(384))  # a row appended past the restored ones, coded and split
    conn.execute("INSERT INTO chunks VALUES (?, 'v', 'late')", (len(matrix) + 9,))
    conn.execute("INSERT INTO embeddings VALUES ('m', 'late', ?)", (late.tobytes(),))
    got = ranked(conn, again, late, 64)
    same(got, exact(conn, late, 64))
    assert got[0][0] == len(matrix) + 9
