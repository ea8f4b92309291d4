"""The `[limits] max_note_bytes` bound of a note read whole (`VaultFiles.read`, `modify`, a bounded `scan`).

The size is the `fstat` of the descriptor the read then reads from (`service.vault.dirfd`), so the
file measured is the file read: no second path lookup, nothing read before the refusal."""

from __future__ import annotations

import os
from collections.abc import Callable

from service.errors import ComputeBudgetExceeded

Check = Callable[[os.stat_result], None]


RAISE = "An operator can raise [limits] max_note_bytes (VAULTGATE_LIMITS__MAX_NOTE_BYTES)."
ELSE = "The note can still be deleted, moved or renamed, and search finds its first part; split it to edit it here."


def too_large(rel: str, size: int, limit: int, why: str = "", instead: str = ELSE) -> ComputeBudgetExceeded:
    """The refusal of the note `rel` over `limit` bytes; `why`: what needed it whole (after a colon),
    `instead`: what the caller can do (the hint, after the setting)."""
    return ComputeBudgetExceeded(
        f"{rel!r} is {size} bytes, over the {limit} bytes a note may have to be read whole{why and ': ' + why}",
        details={"path": rel, "size": size, "limit": "note_bytes", "max_note_bytes": limit},
        hint=f"{RAISE} {instead}",
    )


def bound(rel: str, limit: int | None) -> Check | None:
    """A check of an opened file's stat that refuses one over `limit` bytes (None: no limit)."""
    if limit is None:
        return None

    def check(st: os.stat_result) -> None:
        if st.st_size > limit:
            raise too_large(rel, st.st_size, limit)

    return check
