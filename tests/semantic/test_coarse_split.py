"""The coarse look in two halves (`firstpass.coarse`: the second on a helper thread) gives every
row the estimate of one call, bit for bit, and so the same candidates, whether the helper takes
its half or is busy and the caller estimates it itself."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from service.semantic import codes, firstpass
from tests.semantic.test_vecfile import unit

Array = np.ndarray[Any, Any]


def small_codes(rows: int, seed: int) -> codes.Small:
    rng = np.random.default_rng(seed)
    matrix = unit(rng.standard_normal((rows, 384)))
    basis, steps = codes.fit_small(matrix)
    return codes.Small.of(basis, steps, codes.small_of(matrix, basis, steps))


@pytest.mark.parametrize("rows", [3 * codes.WIDEN_ROWS + 37, 4 * codes.WIDEN_ROWS, 2 * codes.WIDEN_ROWS + 1])
def test_halves_estimate_as_one_call(monkeypatch: pytest.MonkeyPatch, rows: int) -> None:
    monkeypatch.setattr(firstpass, "SPLIT_ROWS", 2 * codes.WIDEN_ROWS)
    small = small_codes(rows, 21)
    for q in unit(np.random.default_rng(22).standard_normal((3, 384))):
        whole = codes.small_estimates(small, q, axes=codes.COARSE_AXES)
        assert np.array_equal(firstpass.coarse(small, q), whole)


def test_a_busy_helper_leaves_the_second_half_to_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(firstpass, "SPLIT_ROWS", 2 * codes.WIDEN_ROWS)
    small = small_codes(3 * codes.WIDEN_ROWS + 5, 23)
    q = unit(np.random.default_rng(24).standard_normal(384))
    release = threading.Event()
    held = firstpass.helper().submit(release.wait, 10)  # another search's half holds the helper
    try:
        got = firstpass.coarse(small, q)
    finally:
        release.set()
        held.result(timeout=10)
    assert np.array_equal(got, codes.small_estimates(small, q, axes=codes.COARSE_AXES))


def test_split_candidates_are_the_one_call_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first pass's candidates with the coarse look split equal those without the split."""
    small = small_codes(6 * codes.WIDEN_ROWS + 11, 25)
    ids = np.arange(len(small), dtype=np.int64)

    class Mat:  # the fields `firstpass.candidates` reads
        pass

    mat: Any = Mat()
    mat.ids, mat.small, mat.dead = ids, small, np.array([5, 700], dtype=np.int64)
    for q in unit(np.random.default_rng(26).standard_normal((3, 384))):
        monkeypatch.setattr(firstpass, "SPLIT_ROWS", 10**9)
        one = firstpass.candidates(mat, q, 40, {})
        monkeypatch.setattr(firstpass, "SPLIT_ROWS", 2 * codes.WIDEN_ROWS)
        assert np.array_equal(firstpass.candidates(mat, q, 40, {}), one)
