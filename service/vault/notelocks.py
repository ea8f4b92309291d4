"""A lock per note shared by every vaultgate process on one vault (several servers, or `serve`
beside `stdio`, on the same folder).

A process serializes its own writes to a note (`VaultFiles.lock`, and the memory's group commit),
and compares the note's etag right before the rename that replaces it (`temps.write_in`'s
`check`). Between two processes only that compare guards, and the compare and the rename are two
system calls: a second process renaming in between was overwritten by the first one's version,
built from what it read before (an acknowledged write lost). `held` closes that window: the last
compare and the rename run under an exclusive `flock` that every vaultgate process on the vault
takes for that note, so the second process's compare sees the first one's rename and answers
`conflict` (a read-modify-write then reads the note again and applies its change to it).

- The lock files live in the per-user data folder (`service.folders.user_data_home()` + `locks/` +
  the vault's `folder_key`), never in the vault: processes of one user share them whatever
  storage folders their configurations name. Each is one of `SLOTS` files chosen by a hash of the
  note's path (letter case folded, so two spellings of one name on a case-blind disk meet): the
  number of files stays bounded, and two notes that share a slot only wait for each other's
  rename, microseconds.
- The wait is bounded (`WAIT_SECONDS`): a process holding the lock longer (stopped, or a disk that
  hangs) turns the write into a `conflict` naming the reason, nothing written. A crashed process's
  lock is released by the system with its file descriptors.
- Where the data folder cannot hold the lock files (read-only home), writes go on without the
  cross-process lock, as before, and the log says so once. A lock folder removed while the
  process runs (a cleaner of the data home) is made again by the next write that finds it gone.
- `flock` locks a file, not a name: once a cleaner removed a lock file, a process that opened it
  before (holding it, or waiting for it) and one that opens the re-made file would both "hold" the
  note's lock. So a lock counts only while its file is still the one the path names (same device
  and inode): a process that locked a removed file takes the re-made one too (waiting for its
  holder, bounded as above) and runs the compare again before it writes. What no lock file can
  close: a cleaner removing the file during the microseconds between that last look and the
  rename.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import logging
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from service import folders
from service.errors import Conflict

SLOTS = 4096
WAIT_SECONDS = 2.0
log = logging.getLogger("vaultgate.vault")
_OPEN = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)


def lock_folder(root: str) -> str | None:
    """The folder of `root`'s lock files, made if missing (None: it cannot be made)."""
    return _made(folders.user_data_home(), root)


@functools.lru_cache(maxsize=64)
def _made(home: str, root: str) -> str | None:
    folder = os.path.join(home, "locks", folders.folder_key(root))
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as exc:
        log.warning("no cross-process write lock for %s (%s: %s): two processes may lose a write", root, folder, exc)
        return None
    return folder


def slot_of(rel: str) -> str:
    """The lock file's name for the vault path `rel`."""
    digest = int.from_bytes(hashlib.sha256(rel.casefold().encode("utf-8", "surrogatepass")).digest()[:4], "big")
    return f"{digest % SLOTS:03x}.lock"


@contextlib.contextmanager
def held(
    root: Path | str, rel: str, *, wait: float | None = None, check: Callable[[], object] | None = None
) -> Iterator[None]:
    """Hold the cross-process lock of note `rel` in vault `root` (blocking, in a worker thread);
    `conflict` when another process holds it longer than `wait` (default `WAIT_SECONDS`). `check`
    runs once the lock is held, before the block (it may raise: the block does not run); again
    when the lock file was removed meanwhile and the re-made one had to be taken too."""
    folder = lock_folder(str(root))
    wait = WAIT_SECONDS if wait is None else wait
    deadline = time.monotonic() + wait
    fds: list[int] = []  # every lock taken, closed (released) at the end
    try:
        path = None if folder is None else _take(folder, rel, (deadline, wait), fds)
        if check is not None:
            check()
        while folder is not None and path is not None and not _names(path, fds[-1]):
            if time.monotonic() >= deadline:  # removed while held: take the re-made one (in time)
                raise _busy(rel, wait)
            path = _take(folder, rel, (deadline, wait), fds)
            if check is not None:
                check()
        yield  # released by the close below (and by the system if the process dies)
    finally:
        for fd in fds:
            os.close(fd)


def _take(folder: str, rel: str, until: tuple[float, float], fds: list[int]) -> str | None:
    """Lock the slot file `rel`'s path names (the lock's path; None: no lock file can be opened)."""
    path = os.path.join(folder, slot_of(rel))
    while True:
        fd = _open(folder, path, rel)
        if fd is None:
            return None
        fds.append(fd)
        _acquire(fd, rel, until)
        if _names(path, fd):
            return path
        if time.monotonic() >= until[0]:  # the file was removed (maybe made again) while waiting
            raise _busy(rel, until[1])


def _names(path: str, fd: int) -> bool:
    """Whether `path` still names the open file `fd` (not removed, not replaced)."""
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    held_file = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (held_file.st_dev, held_file.st_ino)


def _open(folder: str, path: str, rel: str) -> int | None:
    try:
        try:
            return os.open(path, _OPEN, 0o600)
        except FileNotFoundError:  # the folder was removed while running (a cleaner of the data home)
            os.makedirs(folder, mode=0o700, exist_ok=True)
            return os.open(path, _OPEN, 0o600)
    except OSError as exc:
        log.warning("cross-process write lock of %s not taken: %s", rel, exc)
        return None


def _acquire(fd: int, rel: str, until: tuple[float, float]) -> None:
    deadline, wait = until
    pause = 0.0005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
        if time.monotonic() >= deadline:
            raise _busy(rel, wait)
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


BUSY = "locked by another process"  # details.reason of the conflict after the bounded wait


def busy(exc: Conflict) -> bool:
    """Whether `exc` is the bounded wait for another process's lock running out: the note is that
    process's for now, so a write that re-reads and retries on a conflict answers it at once
    instead of waiting out the bound again for each try."""
    return exc.details.get("reason") == BUSY


def _busy(rel: str, wait: float) -> Conflict:
    return Conflict(
        f"{rel!r} is being written by another vaultgate process on this vault",
        details={"path": rel, "reason": BUSY, "waited_seconds": wait},
        hint="Nothing was written: read the note again and retry.",
    )
