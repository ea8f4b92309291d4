"""Opening a vault path in one system call, with no link followed anywhere on the way.

`service.vault.dirfd.read_file` walks from the vault root one folder at a time with `O_NOFOLLOW`
so that a folder swapped for a symlink is never followed: for a note three folders deep that is
five `open`s and five `close`s (a typical note of the 10k workload, in process: ~16-22 us walked,
~6-8 us in one call). `VaultPaths._plain_below_root` `lstat`s every component of a path for the
same reason. Linux's `openat2(2)` with `RESOLVE_NO_SYMLINKS` gives the same guarantee in one call:
the kernel refuses (`ELOOP`) a symlink in *any* component as it resolves the path, so a link
swapped in meanwhile cannot be followed either.

`arm()` loads it (through ctypes, which a stdio start's first reads do not import: they walk) and
probes it once: on another system, an older kernel or under a seccomp profile that refuses it
(`ENOSYS`, `EPERM`), both openers stay None and every read walks as before. The openers are only
a fast path: on any failure (a link, a missing file, a folder, a special file) the caller walks,
so every error is reported exactly as before.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable

# `struct open_how.resolve`; the system call's number is the same on the architectures listed
# (the generic table every architecture added since Linux 5.1 shares).
RESOLVE_NO_SYMLINKS = 0x04
_SYS_OPENAT2 = 437
_ARCHES = frozenset({"x86_64", "aarch64", "arm64", "riscv64", "i686", "i386", "armv7l", "armv8l", "ppc64le", "s390x"})
_AT_FDCWD = -100

Opener = Callable[[bytes], int]  # absolute path -> fd, or OSError

# What a component check opens: the name, no data access (`VaultPaths._plain_below_root`). No
# `O_NOFOLLOW`: with it `O_PATH` opens a link at the end itself; without, `RESOLVE_NO_SYMLINKS`
# refuses it as any other.
PATH_FLAGS = getattr(os, "O_PATH", 0) | getattr(os, "O_CLOEXEC", 0)

_opener: Opener | None = None
_path_opener: Opener | None = None
_armed = False


def opener() -> Opener | None:
    """The one-call opener for reading, or None (not armed, or not available here)."""
    return _opener


def path_opener() -> Opener | None:
    """The one-call opener with `PATH_FLAGS` (a descriptor naming the file, to close at once)."""
    return _path_opener


def arm(flags: int, probe: str) -> None:
    """Load `openat2`, make the reading opener with `flags` (`O_RDONLY | O_NOFOLLOW | …`) and
    check it on `probe` (an existing folder); idempotent. Leaves both openers None where it does
    not work."""
    global _opener, _path_opener, _armed
    if _armed:
        return
    _armed = True
    if not sys.platform.startswith("linux") or platform.machine() not in _ARCHES:
        return
    import ctypes

    try:
        # PyDLL: the call keeps the GIL. It takes microseconds, and a thread that took the GIL
        # meanwhile would hold the event loop for up to a switch interval (5 ms).
        syscall = ctypes.PyDLL(None, use_errno=True).syscall
    except (OSError, AttributeError):
        return

    class OpenHow(ctypes.Structure):
        _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]

    get_errno = ctypes.get_errno

    def make(with_flags: int) -> Opener:
        how = OpenHow(with_flags, 0, RESOLVE_NO_SYMLINKS)
        how_ref, how_size = ctypes.byref(how), ctypes.sizeof(how)

        def open_no_links(path: bytes) -> int:
            fd: int = syscall(_SYS_OPENAT2, _AT_FDCWD, path, how_ref, how_size)
            if fd < 0:
                err = get_errno()
                raise OSError(err, os.strerror(err))
            return fd

        open_no_links.how = how  # type: ignore[attr-defined]  # kept alive with the function
        return open_no_links

    reading, naming = make(flags), make(PATH_FLAGS)
    try:
        os.close(reading(os.fsencode(probe)))
        if hasattr(os, "O_PATH"):
            os.close(naming(os.fsencode(probe)))
            _path_opener = naming
    except OSError:
        return  # ENOSYS, EPERM (seccomp), a probe path with a link in it: walk instead
    _opener = reading
