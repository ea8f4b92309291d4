"""Linux's inotify, read by the event loop: what the file watcher needs, and nothing more.

`watchfiles` (Rust notify 8) asks inotify for every event of every folder, opens and closes
for reading among them, and filters them out after the fact: each note a call read woke
notify's thread (50 wake-ups for 50 `read_note`s), and a thread of the watcher took the
interpreter's lock every 10-50 ms to look for batches. Here the kernel is asked only for
changes (`MASK`: a file written, created, deleted, moved, its attributes changed), so a read
wakes nothing, and the inotify descriptor is watched by the event loop (`loop.add_reader`),
so an idle vault wakes nothing either.

`Inotify` watches a folder with every folder below it, except the ones the index never reads:
hidden folders (a name starting with '.'), folders whose name is not UTF-8, the folders in
`skip` (vaultgate's own), and symlinks (never followed). A folder created or moved in while
watching is watched at once, the folders below it a step at a time before the watcher lists the
batch (`walked`), and reported itself: the watcher stands it for every file under it
(`watch.Watcher._changes`), which also covers files made in it before its watch was in place. A
folder moved away or deleted is reported as deleted, and its watches are dropped. A folder that
cannot be watched (not readable to the server, or a path longer than the OS takes) is left out,
as `watchfiles` left it out (`ignore_permission_denied`), instead of ending the watch of the
whole vault; one made readable later (its `chmod` reports it) is watched then. The root itself
must be a folder that can be watched: missing, replaced by a symlink (never followed) or
unreadable, `open` raises `WatchLost` and the watcher tries again. `drain` returns what came as
`(change, path)` with `watchfiles.Change`'s numbers (1 added, 2 modified, 3 deleted). A lost
event (the kernel's queue overflowed), or the watched folder itself deleted or moved, raises
`WatchLost`: the watcher starts again and re-reads the vault (`watch.Watcher._run`).
"""

from __future__ import annotations

import asyncio
import ctypes
import errno
import functools
import os
import struct
import sys
from collections.abc import Callable

from service.vault.decoding import is_utf8_bytes

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_EXCL_UNLINK = 0x04000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = 0x00000800
IN_CLOEXEC = 0x00080000
MASK = (
    IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
    | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK
)  # fmt: skip
ADDED, MODIFIED, DELETED = 1, 2, 3  # watchfiles.Change
HEADER = struct.Struct("iIII")  # wd, mask, cookie, len (then the name, NUL-padded)
READ_BYTES = 64 * 1024
WALK_STEP = 256  # folders listed and watched between two turns of the event loop (`Inotify.walked`)
# inotify_add_watch's errors for a folder that is left out rather than ending the watch: ENOENT,
# ENOTDIR, ELOOP (gone or replaced by a link meanwhile: its event follows), EACCES (not readable to
# the server), ENAMETOOLONG (a path past the OS's PATH_MAX: the index cannot open it either).
SKIPPED_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EACCES, errno.ENAMETOOLONG})


class WatchLost(OSError):
    """Events were lost (the kernel's queue overflowed) or the watched folder went away."""


def available() -> bool:
    """Whether this system has inotify (Linux, a C library that exports it)."""
    return _libc() is not None


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The interpreter's own C library (as `service.vault.dirfd` loads it), once: no library search."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):
        return None
    return libc


class Inotify:
    """One inotify instance over `root` and the folders below it (module docstring)."""

    def __init__(
        self, root: str, *, recursive: bool = True, skip: Callable[[bytes], bool] = lambda path: False
    ) -> None:
        libc = _libc()
        if libc is None:
            raise OSError("inotify is not available here")
        self._libc = libc
        self.root = os.fsencode(root)
        self.recursive = recursive
        self.skip = skip  # a folder (absolute, bytes) never watched
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            raise _error("inotify_init1", self.root)
        self.fd = fd
        self._paths: dict[int, bytes] = {}  # watch descriptor -> its folder
        self._wds: dict[bytes, int] = {}  # folder -> its watch descriptor
        self._root_wd = -1
        self.pending: list[bytes] = []  # watched folders whose folders below are not watched yet (`walked`)

    def open(self) -> None:
        """Watch the root (and with `recursive`, every folder below it). Blocks on the file
        system: run it in a worker thread."""
        self._root_wd = self._add(self.root)
        if self._root_wd < 0:  # never a walk of what a link put in its place
            raise WatchLost(f"the vault folder {os.fsdecode(self.root)!r} is missing, not a folder or not readable")
        if self.recursive:
            self._add_below(self.root)

    @property
    def watches(self) -> int:
        return len(self._paths)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def drain(self) -> set[tuple[int, str]]:
        """Every event that has come, as `(change, path)`; empty when none."""
        out: set[tuple[int, str]] = set()
        while True:
            try:
                data = os.read(self.fd, READ_BYTES)
            except BlockingIOError:
                return out
            if not data:
                return out
            self._parse(data, out)

    def _parse(self, data: bytes, out: set[tuple[int, str]]) -> None:
        at, end = 0, len(data)
        while at + HEADER.size <= end:
            wd, mask, _cookie, size = HEADER.unpack_from(data, at)
            name = data[at + HEADER.size : at + HEADER.size + size].rstrip(b"\x00")
            at += HEADER.size + size
            if mask & IN_Q_OVERFLOW:
                raise WatchLost("inotify's event queue overflowed: events were lost")
            folder = self._paths.get(wd)
            if mask & IN_IGNORED:
                self._forget(wd)
                continue
            if folder is None:
                continue  # a watch dropped meanwhile
            if mask & (IN_DELETE_SELF | IN_MOVE_SELF):
                if wd == self._root_wd:
                    raise WatchLost(f"the watched folder {os.fsdecode(self.root)!r} was deleted or moved")
                continue  # its parent's event reports it
            if not name or not is_utf8_bytes(name):
                continue  # a name the index leaves out
            path = folder + b"/" + name
            if mask & IN_ISDIR:
                if mask & (IN_MOVED_FROM | IN_DELETE):
                    self._drop_below(path)
                    out.add((DELETED, os.fsdecode(path)))
                elif mask & (IN_CREATE | IN_MOVED_TO):
                    if self.recursive and self._watched(path, name) and self._add(path) >= 0:
                        self.pending.append(path)  # what is below it: `walked`, off this read
                    out.add((ADDED, os.fsdecode(path)))
                else:
                    if self.recursive and path not in self._wds and self._watched(path, name) and self._add(path) >= 0:
                        self.pending.append(path)  # a folder left out while unreadable, readable now
                    out.add((MODIFIED, os.fsdecode(path)))
            elif mask & (IN_DELETE | IN_MOVED_FROM):
                out.add((DELETED, os.fsdecode(path)))
            elif mask & (IN_CREATE | IN_MOVED_TO):
                out.add((ADDED, os.fsdecode(path)))
            else:
                out.add((MODIFIED, os.fsdecode(path)))

    def _watched(self, path: bytes, name: bytes) -> bool:
        return not name.startswith(b".") and is_utf8_bytes(name) and not self.skip(path)

    def _add(self, path: bytes) -> int:
        wd = int(self._libc.inotify_add_watch(self.fd, path, MASK))
        if wd < 0:
            err = ctypes.get_errno()
            if err in SKIPPED_ERRNOS:  # gone or replaced meanwhile (its event follows), or left out
                return -1
            raise _error("inotify_add_watch", path, err)
        old = self._paths.get(wd)
        if old is not None and old != path:
            self._wds.pop(old, None)
        self._paths[wd] = path
        self._wds[path] = wd
        return wd

    def _add_below(self, top: bytes) -> None:
        self.pending.append(top)
        while self.pending:
            self._walk(WALK_STEP)

    async def walked(self) -> None:
        """Watch the folders below the folders that came while watching (`pending`), `WALK_STEP`
        folders at a time with the event loop let go between: walked inside `drain`, a tree of
        20,400 folders moved in held the loop 0.28-0.37 s at once (0.06 s at most now). The
        watcher awaits it before it lists what came (`watch.Watcher._changes`), so a file made
        before its folder's watch is still seen."""
        while self.pending:
            self._walk(WALK_STEP)
            await asyncio.sleep(0)

    def _walk(self, most: int) -> None:
        for _ in range(most):
            if not self.pending:
                return
            here = self.pending.pop()
            if here not in self._wds:
                continue  # moved away or deleted meanwhile: its new place has its own walk
            try:
                with os.scandir(here) as entries:
                    found = [e for e in entries if e.is_dir(follow_symlinks=False)]
            except OSError:
                continue  # gone meanwhile, or not readable
            for entry in found:
                name = os.fsencode(entry.name)
                path = here + b"/" + name
                if self._watched(path, name) and self._add(path) >= 0:
                    self.pending.append(path)

    def _drop_below(self, top: bytes) -> None:
        """Stop watching `top` and everything below it (moved away: its watches would report
        under the old name)."""
        prefix = top + b"/"
        for path in [p for p in self._wds if p == top or p.startswith(prefix)]:
            wd = self._wds.pop(path)
            self._paths.pop(wd, None)
            self._libc.inotify_rm_watch(self.fd, wd)

    def _forget(self, wd: int) -> None:
        path = self._paths.pop(wd, None)
        if path is not None and self._wds.get(path) == wd:
            del self._wds[path]
        if wd == self._root_wd:
            raise WatchLost(f"the watch of {os.fsdecode(self.root)!r} ended")


def _error(call: str, path: bytes, err: int | None = None) -> OSError:
    err = ctypes.get_errno() if err is None else err
    return OSError(err, f"{call}: {os.strerror(err)}", os.fsdecode(path))
