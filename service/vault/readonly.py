"""Notes made read-only with `chmod a-w` are not changed.

A note whose file the server's user may not write is refused by every write that would change
it — an edit (write, append, patch, properties: each replaces the file by a rename, which the
folder's permission allows, so without this check the note was edited anyway), an overwrite by
a copy, a move or rename, and a delete (to the trash or for good). Obsidian's own save fails
there with EACCES; `rm` asks before removing a write-protected file; a person who took the
write permission away means "do not change it", so a move or delete is refused as well.

The server's user is asked as the kernel answers it (`os.access` with the effective ids: owner,
group, ACLs). Root may write anything, so for root the kernel's answer says nothing: then a file
no one has a write bit for (`chmod a-w`, mode 0444) is refused, and a file only its owner may
write (0644 owned by someone else) is written — nothing marks it read-only for root.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from service.errors import VaultUnwritable

_EFFECTIVE = os.access in os.supports_effective_ids


def read_only(path: Path, *, entry: bool = False) -> str | None:
    """The mode (`-r--r--r--`) of `path` when it is a regular file the server's user may not
    write, else None (`entry`: the directory entry itself, a link not followed — what a move or
    delete changes; gone or not reachable: None, the change itself answers for it)."""
    try:
        st = path.lstat() if entry else path.stat()
    except OSError:
        return None
    return None if not stat.S_ISREG(st.st_mode) or _writable(path, st) else stat.filemode(st.st_mode)


def refuse_read_only(path: Path, rel: str, *, entry: bool = False) -> None:
    """Raise `vault_unwritable` when `path` is a regular file the server's user may not write."""
    mode = read_only(path, entry=entry)
    if mode is None:
        return
    raise VaultUnwritable(
        f"{rel!r} is read-only ({mode}): its file has no write permission for the server's user, "
        "so vaultgate does not change, move or delete it",
        details={"path": rel, "errno": "EACCES", "reason": "read_only_file", "mode": mode},
        hint="Give the file write permission (chmod u+w) if it may be changed; nothing was changed.",
    )


def _writable(path: Path, st: os.stat_result) -> bool:
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return bool(st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return os.access(path, os.W_OK, effective_ids=_EFFECTIVE)
