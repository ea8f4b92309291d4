"""A file's etag: the content hash a caller reads and passes back as `expected_etag`.

A leaf (hashlib only): the parse workers hash every note they read (`service.indexer.reading`)
without importing the file layer (`service.vault.files`: asyncio and the write path).
"""

from __future__ import annotations

import hashlib


def etag_of(data: bytes) -> str:
    """The content hash callers pass back as `expected_etag`."""
    return hashlib.sha256(data).hexdigest()[:32]
