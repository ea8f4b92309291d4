"""Which server process owns a row of shared state: a lock file held for the owner's life.

Several servers may share one data or cache folder (an HTTP daemon and a stdio instance on one
vault): each opens its plan runs (`<data>/plan-owners`, `service.plans.journal`) and its reindex
jobs (`<cache>/job-owners`, `service.indexer.jobs`) under an owner id of its own and holds
`<folder>/<owner>.lock` with `flock` while it lives. The kernel drops the lock when the process
dies, a `kill -9` included, so at start-up a row still `running` whose owner's lock can be taken
(or whose lock file is gone, or that has no owner: rows written before the owner column) died
with its process and is recovered; a row whose owner's lock is held belongs to a live server and
is left alone. `flock` locks belong to an open file, so two servers in one process (tests) are
two owners. A lock file is taken under a hidden name and then renamed into place, so another
start's sweep never finds it before it is held.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import uuid
from pathlib import Path

SUFFIX = ".lock"


class Owner:
    """This server's owner id and its held lock (taken at the first `id` read)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._id: str | None = None
        self._fd: int | None = None

    @property
    def id(self) -> str:
        if self._id is None:
            owner = uuid.uuid4().hex
            self.folder.mkdir(parents=True, exist_ok=True)
            # Held before it has its name: a sweep (`live_owners`) that opened a lock file between
            # its creation and its flock took it for a dead owner's and removed it.
            hidden = self.folder / f".{owner}.new"
            fd = os.open(hidden, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a new file: nobody else holds it
            os.rename(hidden, self.folder / f"{owner}{SUFFIX}")
            self._id, self._fd = owner, fd
        return self._id

    def release(self) -> None:
        """Give the lock up (the server stopped): its runs still `running` are a dead owner's
        to the next start; a later `id` is a new owner."""
        if self._fd is not None:
            with contextlib.suppress(FileNotFoundError):
                (self.folder / f"{self._id}{SUFFIX}").unlink()
            os.close(self._fd)
        self._id = self._fd = None

    def is_mine(self, owner: str | None) -> bool:
        return owner is not None and owner == self._id


def alive(folder: Path, owner: str | None) -> bool:
    """Whether `owner`'s lock is held (by another open file than this check's). A dead owner's
    lock file is removed."""
    if not owner or "/" in owner or owner.startswith("."):
        return False
    path = folder / f"{owner}{SUFFIX}"
    try:  # never through a symbolic link, nor a folder or another stray file of that name
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:  # gone, a folder, a link, not ours to open: no live owner's lock
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return False
    finally:
        os.close(fd)


def live_owners(folder: Path) -> set[str]:
    """The owners whose lock is held now; every other lock file in `folder` is removed (a
    killed server that had no running run leaves its file too)."""
    try:
        names = [p.name[: -len(SUFFIX)] for p in folder.iterdir() if p.name.endswith(SUFFIX)]
    except FileNotFoundError:
        return set()
    return {owner for owner in names if alive(folder, owner)}
