"""The one interface every embedding source implements.

Vectors come back as float32 rows, L2-normalised (cosine similarity is then a dot product).
A source that is down raises `EmbeddingUnavailable`; callers never wait longer than the
source's own timeout and retry budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # numpy loads with the first vector, not with the server
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any


class Embedder(Protocol):
    @property
    def name(self) -> str:
        """Stable id of the model and its settings (`provider:model[:dims]`): vectors of two names never mix."""
        ...

    @property
    def backend(self) -> str:
        """Where inference runs (e.g. `onnxruntime-cpu`, `http://127.0.0.1:11434`)."""
        ...

    async def embed_documents(self, texts: list[str]) -> Matrix:
        """One normalised row per text (document prefix applied)."""
        ...

    async def embed_query(self, text: str) -> Matrix:
        """A 1-row matrix for a search query (query prefix applied)."""
        ...


def normalise(rows: Matrix) -> Matrix:
    import numpy as np

    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Matrix = (rows / norms).astype(np.float32, copy=False)
    return out
