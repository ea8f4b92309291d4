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
    mat: Matrix, q: np.ndarray[Any, Any], wanted: int, estimated: dict[str, np.ndarray[Any, Any]]
) -> np.ndarray[Any, Any]:
    """The rows (ascending) of the first pass's `wanted` best estimates. With int8 codes (the file
    layout) a coarse look on the leading axes keeps `codes.refine_share` rows first, whose
    estimates the other axes then complete. `estimated` keeps each look at every row (rows of chunks gone or
    changed since they were read estimated at -inf)."""
    import numpy as np

    from service.semantic import codes

    def every_row(kind: str) -> np.ndarray[Any, Any]:
        found = estimated.get(kind)
        if found is None:
            if mat.small is None:
                found = codes.estimates(ensure_codes(mat), q)
            else:
                found = codes.small_estimates(mat.small, q, axes=codes.COARSE_AXES if kind == "coarse" else None)
            found[mat.dead] = -np.inf
            estimated[kind] = found
        return found

    keep = codes.refine_share(len(mat.ids), wanted) if mat.small is not None else None
    if mat.small is None or keep is None:
        return codes.candidates(every_row("full"), wanted)
    coarse = every_row("coarse")
    first = codes.candidates(coarse, keep)
    fine = coarse[first] + codes.small_estimates(mat.small, q, at=first, skip=codes.COARSE_AXES)
    chosen: np.ndarray[Any, Any] = first[codes.candidates(fine, wanted)]
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
