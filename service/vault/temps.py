"""Atomic writes through a temp file, and the temp files a crash left behind.

An atomic write (`_write_atomic`, used by `service.vault.files`) writes
`.<name>.<random>.p<pid>.vgtmp` beside its target, fsyncs it and renames it over the target; a
process killed in between leaves the temp file. The
indexer's disk scan lists them and `sweep` removes the stale ones: written before this process
started (so not by it), and either by a process that no longer exists on this host (after a
few seconds' grace) or, when the writer cannot be told (no pid in the name, or the pid is alive
— maybe another vaultgate on the same vault, maybe a reused pid), after `GRACE_SECONDS`. A temp
file another live process may still be writing is never removed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import stat
import time
from collections.abc import Iterable
from pathlib import Path

from service.errors import AlreadyExists

SUFFIX = ".vgtmp"
PROCESS_START = time.time()
DEAD_WRITER_GRACE_SECONDS = 5.0
GRACE_SECONDS = 3600.0
TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.[0-9a-f]{12}(?:\.p(?P<pid>\d+))?\.vgtmp$")
log = logging.getLogger("vaultgate.vault")


def temp_name(target_name: str) -> str:
    """A fresh temp file name for a write replacing `target_name`."""
    return f".{target_name[:40]}.{secrets.token_hex(6)}.p{os.getpid()}{SUFFIX}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def is_stale(path: Path, *, now: float, started: float = PROCESS_START) -> bool:
    """Whether the temp file at `path` was left by a writer that is gone."""
    found = TEMP_NAME.match(path.name)
    if found is None:
        return False
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return False
    if mtime >= started:
        return False  # written since this process started: possibly ours, possibly in flight
    age = now - mtime
    pid = int(found["pid"]) if found["pid"] else None
    if pid is not None and pid != os.getpid() and not _alive(pid):
        return age > DEAD_WRITER_GRACE_SECONDS
    return age > GRACE_SECONDS


def sweep(root: Path, rels: Iterable[str], *, now: float | None = None, started: float = PROCESS_START) -> list[str]:
    """Remove the stale temp files among `rels` (vault-relative); returns the ones removed."""
    moment = time.time() if now is None else now
    removed: list[str] = []
    for rel in rels:
        path = root / rel
        if is_stale(path, now=moment, started=started):
            try:
                path.unlink()
            except FileNotFoundError:
                continue  # its writer finished or another sweep was first
            except OSError as exc:
                log.warning("could not remove the stale temp file %s: %s", rel, exc)
                continue
            removed.append(rel)
    if removed:
        log.info("removed %d temp file(s) left by an interrupted write: %s", len(removed), ", ".join(removed[:5]))
    return removed


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _temp_beside(target: Path) -> tuple[int, Path]:
    """A new temp file in the target's folder, created with mode 0666 so the umask applies."""
    for _ in range(100):
        tmp = target.with_name(temp_name(target.name))
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temp name beside {target.name}")


def _write_atomic(target: Path, data: bytes, *, exclusive: bool) -> None:
    """Temp file in the same folder + fsync + rename (or hard link for create-only).

    A new file gets the default mode (0666 minus the umask, as any editor would create it); an
    overwritten file keeps its mode. `target` must not be a symlink (see `VaultFiles._real`): the
    rename would replace the link itself.
    """
    folder = target.parent
    fd, tmp = _temp_beside(target)
    try:
        with os.fdopen(fd, "wb") as fh:
            if not exclusive:
                with contextlib.suppress(FileNotFoundError):
                    os.fchmod(fh.fileno(), stat.S_IMODE(os.stat(target).st_mode))
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if exclusive:
            try:
                os.link(tmp, target)
            except FileExistsError:
                raise AlreadyExists("a file already exists at that path", details={"path": target.name}) from None
            tmp.unlink()
        else:
            os.replace(tmp, target)
        _fsync_dir(folder)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
