"""A file's etag: the content hash a caller reads and passes back as `expected_etag`.

A leaf (hashlib and the error types only): the parse workers hash every note they read
(`service.indexer.reading`) without importing the file layer (`service.vault.files`: asyncio and
the write path).
"""

from __future__ import annotations

import hashlib
from typing import BinaryIO

from service.errors import Conflict, NoteNotFound, VaultgateError

ETAG_CHARS = 32  # of the SHA-256 hex digest
CHUNK = 1 << 20  # `etag_of_stream`'s read size: its memory whatever the file's length


def etag_of(data: bytes) -> str:
    """The content hash callers pass back as `expected_etag`."""
    return hashlib.sha256(data).hexdigest()[:ETAG_CHARS]


def etag_of_stream(fh: BinaryIO) -> str:
    """`etag_of` the bytes `fh` reads to its end, hashed `CHUNK` bytes at a time (a 600 MB note's
    whole read cost ~2x its size in memory to compare an `expected_etag`)."""
    digest = hashlib.sha256()
    while chunk := fh.read(CHUNK):
        digest.update(chunk)
    return digest.hexdigest()[:ETAG_CHARS]


def same_etag(rel: str, expected_etag: str, current: str | None) -> None:
    """A write's compare: `conflict` unless the file at `rel` is now `expected_etag` (`current`, None: gone)."""
    if current != expected_etag:
        raise Conflict(
            f"{rel!r} changed since it was read" if current else f"{rel!r} does not exist (any more)",
            details={"path": rel, "expected_etag": expected_etag, "current_etag": current},
        )


def stale_etag(rel: str, expected_etag: str, current: str | None) -> VaultgateError:
    """The one answer of every writing tool to an `expected_etag` that is not the file's now.

    A file that is there with another version is a `conflict` (read it again). A file that is not
    there is `note_not_found`, never "the note changed since you read it": the caller may have
    named a path that never existed, and no etag it could read again would help."""
    details = {"path": rel, "expected_etag": expected_etag, "current_etag": current}
    if current is not None:
        return Conflict(f"{rel!r} changed since it was read", details=details)
    return NoteNotFound(
        f"no file at {rel!r}: the expected_etag names a version of a file that is not there",
        details={**details, "suggestions": []},
        hint="Check the path (list_notes, search_text); to create the file, call without expected_etag.",
    )
