"""Token sizes of texts already measured, kept by the app (`Services.token_sizes`).

`context_for_query` measures its candidate passages in the builtin WordPiece tokenizer's tokens
(`service.embeddings.counting`); the same chunks come back query after query, so a text's size is
remembered. It is remembered by a 16-byte digest of the text, not by the text: a full memo of
50,000 sizes holds a few MB whatever the texts' length, where one keyed by text held every
passage measured, and every shortened head of a cut one, whole (tens to hundreds of MB of
chunk-sized texts). Full, it starts again empty: the memo is only a shortcut. One memo per app,
not per process: two servers in one process (tests, a served process and its in-process calls)
neither share it nor keep each other's texts alive.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

SIZES_MAX = 50_000


class TokenSizes:
    def __init__(self, max_texts: int = SIZES_MAX) -> None:
        self.max_texts = max_texts
        self._sizes: dict[bytes, int] = {}

    def __len__(self) -> int:
        return len(self._sizes)

    def size(self, text: str, count: Callable[[str], int]) -> int:
        """`text`'s size, `count(text)` the first time it is asked for."""
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        found = self._sizes.get(key)
        if found is None:
            if len(self._sizes) >= self.max_texts:
                self._sizes.clear()
            found = self._sizes[key] = count(text)
        return found
