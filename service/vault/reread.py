"""Replacing a note with a version built from what was read, only if it still holds that.

`VaultFiles.modify` (append, prepend, patch, property and task edits, …) reads a note, builds the
new text and writes it through a temp file (`service.vault.temps.write_in`). Another program may
save, rename or delete the note meanwhile — while the new bytes are written and fsynced, which
takes milliseconds. Right before the rename, `replace_if_unchanged` looks at the note again and
raises `conflict` (nothing replaced) unless it still holds the bytes read: the caller then applies
its change again to the note as it is now, or answers `conflict` to a caller that gave an etag.

The look is one `stat` of the name in the folder already open: the file's identity, size and
times as the read's `fstat` saw them mean nothing wrote to it since (a write changes the size or
the change time; Linux gives a file whose times were just looked at a fine-grained change time
on its next write). Only when they differ (a `touch`, a save of the same bytes, a change) are the
bytes read and their etag compared. The look and the rename hold the note's lock shared by every
vaultgate process on the vault (`service.vault.notelocks`), so another vaultgate cannot rename in
between. Left open, as in every write: another program's save in the microseconds between that
look and the rename (no file system call compares and renames at once).
"""

from __future__ import annotations

import errno
import os
import stat as stat_mode
from functools import partial
from pathlib import Path

from service.errors import Conflict
from service.vault import dirfd, journal
from service.vault.etags import etag_of
from service.vault.temps import write_in

TRIES = 50  # `modify` without an etag: applied again at most this often to a note that keeps changing
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def changed(rel: str, current: str | None, expected: str) -> Conflict:
    gone = current is None
    return Conflict(
        f"{rel!r} does not exist (any more)" if gone else f"{rel!r} changed while it was written",
        details={"path": rel, "expected_etag": expected, "current_etag": current},
    )


def same_file(a: os.stat_result, b: os.stat_result) -> bool:
    """Whether two stats are of one file that nothing wrote to in between."""
    return (a.st_ino, a.st_dev, a.st_size, a.st_mtime_ns, a.st_ctime_ns) == (
        b.st_ino,
        b.st_dev,
        b.st_size,
        b.st_mtime_ns,
        b.st_ctime_ns,
    )


def _etag_in(folder_fd: int, name: str) -> str | None:
    """The etag of the regular file `name` in the open folder now (None: no regular file there)."""
    try:
        fd = os.open(name, _READ, dir_fd=folder_fd)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ELOOP, errno.ENXIO, errno.ENOTDIR):
            return None
        raise
    with os.fdopen(fd, "rb", buffering=0) as fh:
        if not stat_mode.S_ISREG(os.fstat(fd).st_mode):
            return None
        return etag_of(fh.readall())


def unchanged(folder_fd: int, name: str, rel: str, read: os.stat_result, etag: str) -> None:
    """Raise `conflict` unless `name` still holds the version read (its `fstat` `read`, `etag`)."""
    try:
        now = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except FileNotFoundError:
        raise changed(rel, None, etag) from None
    if same_file(now, read):
        return
    current = _etag_in(folder_fd, name) if stat_mode.S_ISREG(now.st_mode) else None
    if current != etag:
        raise changed(rel, current, etag)


def _last_look(folder_fd: int, name: str, root: Path, key: str, data: bytes, read: os.stat_result, etag: str) -> None:
    """Right before the rename: compare; in a journaled run, record the change (with the bytes it
    replaces, just found to be the ones read) only once it is about to be made, and compare again
    (recording reads the note and writes the journal)."""
    unchanged(folder_fd, name, key, read, etag)
    if journal.recording():
        journal.record_file(root, key, etag_of(data))
        unchanged(folder_fd, name, key, read, etag)


def replace_if_unchanged(root: Path, key: str, data: bytes, read: os.stat_result, etag: str) -> os.stat_result:
    """Write `data` over the real in-vault file `key` if it still holds the version read (worker
    thread); `conflict` otherwise, a note (or folder) gone meanwhile included."""
    try:
        with dirfd.parent_of(root, key) as (folder, name):
            check = partial(_last_look, folder.fd, name, root, key, data, read, etag)
            return write_in(folder.fd, name, data, exclusive=False, rel=key, check=check, vault=root)
    except (FileNotFoundError, NotADirectoryError):  # its folder was renamed or removed
        raise changed(key, None, etag) from None
