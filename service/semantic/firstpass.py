"""The first pass of the scan: which rows' exact similarities a ranking computes
(`vectors._ranking`). From compact codes (`codes.py`): the float codes of a matrix held in memory
(made at the first search that needs them), or the int8 codes of the vector file (`vecfile.py`),
where a coarse look on the leading axes comes first. Imports numpy only when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from service.semantic.snapshot import Matrix

if TYPE_CHECKING:
    import numpy as np

    from service.semantic.codes import Codes


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
        coarse = codes.small_estimates(mat.small, q, axes=codes.COARSE_AXES)
        coarse[mat.dead] = -np.inf
        at = codes.candidates(coarse, keep)
        fine = coarse[at] + codes.small_estimates(mat.small, q, at=at, skip=codes.COARSE_AXES)
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
