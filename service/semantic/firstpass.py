"""The first pass of the scan: which rows' exact similarities a ranking computes
(`vectors._ranking`). From compact codes (`codes.py`): the float codes of a matrix held in memory
(made at the first search that needs them), or the int8 codes of the vector file (`vecfile.py`),
where a coarse look on the leading axes comes first. Imports numpy only when called.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from service.semantic.snapshot import Matrix

if TYPE_CHECKING:
    import numpy as np

    from service.semantic.codes import Codes, Small

# From this many rows the coarse look's second half runs on a helper thread while the caller
# estimates the first (`coarse`): numpy widens and multiplies without the interpreter's lock.
SPLIT_ROWS = 131_072
_helper: ThreadPoolExecutor | None = None
_helper_lock = threading.Lock()


def candidates(
    mat: Matrix, q: np.ndarray[Any, Any], wanted: int, estimated: dict[str, tuple[np.ndarray[Any, Any], ...]]
) -> np.ndarray[Any, Any]:
    """The rows (ascending) of the first pass's `wanted` best estimates. With int8 codes (the file
    layout) a coarse look on the leading axes keeps `codes.refine_share` rows first, whose
    estimates the other axes then complete. `estimated` keeps what a later call of the same
    ranking reuses (rows of chunks gone or changed since they were read estimated at -inf): each
    row's estimate where every row is estimated on every axis, and after a coarse look only the
    rows it kept with their completed estimates (`refined`, one entry: readers share rankings).
    At 583,081 rows that is 36,442 rows, 0.3 MB a remembered ranking instead of 2.3 MB, and a
    later page's k up to ~570 keeps the same rows (`refine_share` is rows/16 there): it neither
    looks nor completes again. A k that keeps more rows looks at every row again."""
    import numpy as np

    from service.semantic import codes

    keep = codes.refine_share(len(mat.ids), wanted) if mat.small is not None else None
    if mat.small is None or keep is None:
        every = estimated.get("full")
        if every is None:
            found = codes.estimates(ensure_codes(mat), q) if mat.small is None else codes.small_estimates(mat.small, q)
            found[mat.dead] = -np.inf
            every = estimated["full"] = (found,)
        return codes.candidates(every[0], wanted)
    refined = estimated.get("refined")
    if refined is None or len(refined[0]) != keep:
        rough = coarse(mat.small, q)
        rough[mat.dead] = -np.inf
        at = codes.candidates(rough, keep)
        fine = rough[at] + codes.small_estimates(mat.small, q, at=at, skip=codes.COARSE_AXES)
        refined = estimated["refined"] = (at.astype(np.int32), fine)  # row numbers < 2^31
    first, fine = refined
    chosen: np.ndarray[Any, Any] = first[codes.candidates(fine, wanted)].astype(np.intp)
    return chosen


def ensure_codes(mat: Matrix) -> Codes:
    """The matrix's codes, built (basis fitted, every row coded) when it has none yet. Two
    readers racing here build the same codes; the rows are allocated as many as `store`'s, so
    later snapshots append theirs (`_updated`)."""
    import numpy as np

    from service.semantic import codes

    found = mat.codes
    if found is None or len(found.rows) != len(mat.ids):
        built = codes.build(mat.vectors)
        store = np.empty((len(mat.store), built.rows.shape[1]), dtype=np.float32)
        store[: len(mat.ids)] = built.rows
        mat.code_store, mat.codes = store, codes.Codes(built.basis, store[: len(mat.ids)])
        found = mat.codes
    return found


def pass_size(k: int) -> int:
    """Candidates the first pass keeps for a top k (the larger, the likelier the exact answer)."""
    return max(2000, 8 * k)


def coarse(small: Small, q: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Every row's estimate on the `COARSE_AXES` leading axes (`codes.small_estimates`), the rows
    split in two halves at a block boundary from `SPLIT_ROWS` rows: the second half on a helper
    thread, the first on the caller's, so the estimates are those of one call, bit for bit. At
    583,081 rows the look takes ~12 ms of one core, ~9 ms of wall time in two halves on this
    2-core machine under load (docs/benchmarks.md). When the helper is busy with another search's
    half, the caller estimates its second half itself (the pending one is cancelled): a search
    never waits for another's."""
    import numpy as np

    from service.semantic import codes

    count = len(small)
    if count < SPLIT_ROWS:
        return codes.small_estimates(small, q, axes=codes.COARSE_AXES)
    half = count // 2 // codes.WIDEN_ROWS * codes.WIDEN_ROWS
    out = np.empty(count, dtype=np.float32)
    second = (half, count)
    other = helper().submit(codes.small_estimates, small, q, codes.COARSE_AXES, None, 0, second, out[half:])
    codes.small_estimates(small, q, axes=codes.COARSE_AXES, span=(0, half), out=out[:half])
    if other.cancel():  # not started: the helper is busy elsewhere
        codes.small_estimates(small, q, axes=codes.COARSE_AXES, span=second, out=out[half:])
    else:
        other.result()
    return out


def helper() -> ThreadPoolExecutor:
    """The coarse look's helper thread (one, started at the first large look)."""
    global _helper
    with _helper_lock:
        if _helper is None:
            _helper = ThreadPoolExecutor(1, "vaultgate-coarse")
        return _helper
