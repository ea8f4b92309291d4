"""Compressed sparse rows of (row, column) number pairs: the one builder of the link graph's
tables (service.graph.adjacency) and the graph analytics' out, in and undirected tables."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Int32Array = npt.NDArray[np.int32]
else:
    from service.numpy_lazy import np

    Int32Array = Any


def csr(n: int, rows: Any, cols: Any) -> tuple[Int32Array, Int32Array]:
    """The (row, column) pairs of numbers below `n` as compressed rows: row i's columns are
    `idx[ptr[i]:ptr[i + 1]]`, ascending; int32 (the link graph's tables and the analytics' out,
    in and undirected tables: half the bytes of int64, same results)."""
    order = np.lexsort((cols, rows))
    ptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(rows, minlength=n), out=ptr[1:])
    return ptr, cols[order].astype(np.int32)
