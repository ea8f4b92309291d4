"""The vault folder itself, never through a symlink it became while the server runs.

`VaultPaths` takes the vault folder's real path at the start. Replaced later by a symlink (the
folder renamed away and a link to another folder put in its place, by someone who may write the
vault's parent), every path-joined read, write and listing would land in the folder the link
points at: notes and attachments outside the vault read and written, and indexed. Where the vault
is opened (`open_vault_folder`: the walks of `service.vault.dirfd`), paths are resolved
(`VaultPaths.resolve`) and the index walks it (`service.indexer.scan`, the polling look), such a
vault folder is refused: `path_invalid`, reason "symlink on the way" (as a link swapped in below
it), nothing read or written; the index's walks fail and are tried again.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from service.errors import PathInvalid

_ROOT_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def replaced() -> PathInvalid:
    return PathInvalid(
        "the vault folder was replaced by a symlink since the server started: nothing is read or written there",
        details={"path": "", "reason": "symlink on the way"},
        hint="Put the vault folder back, or start the server on the folder the link points to.",
    )


def refuse_linked(root: Path | str) -> None:
    """Raise `replaced()` when the vault folder `root` is a symlink now (one lstat)."""
    if os.path.islink(root):
        raise replaced()


def open_vault_folder(root: Path | str) -> int:
    """The vault folder `root` opened for `dir_fd` use, never through a link it became."""
    try:
        return os.open(root, _ROOT_FLAGS)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR) or not os.path.islink(root):
            raise
    raise replaced()


def walkable(root: Path | str) -> None:
    """The index's walks: an OSError (the look fails as for a vault folder that cannot be listed,
    and is tried again) when the vault folder is a symlink now."""
    if os.path.islink(root):
        raise OSError(errno.ELOOP, "the vault folder was replaced by a symlink since the server started", str(root))
