"""Atomic writes through a temp file, and the temp files a crash left behind.

An atomic write (`write_in`, used by `service.vault.files` inside a folder opened by
`service.vault.dirfd`) writes `.<name>.<random>.p<pid>h<host>.vgtmp` beside its target, fsyncs it
and renames it over the target; a process killed in between leaves the temp file. The
indexer's disk scan lists them and `sweep` removes the stale ones: written before this process
started (so not by it), and either by a process that no longer exists on this host — at once
when the name carries this host's tag (hostname and boot: the pid is then known to be dead, so
a restart right after a crash leaves no temp file behind), after a few seconds' grace when it
carries no tag or another host's (a vault shared over the network) — or, when the writer cannot
be told (no pid in the name, or the pid is alive — maybe another vaultgate on the same vault,
maybe a reused pid), after `GRACE_SECONDS`. A temp file another live process may still be
writing is never removed. One that carries this process's own pid and this host's tag, written
before it started, is an earlier process's that had the same pid and is gone: removed at once.
That is the container case: the image runs `vaultgate` as PID 1, and a container killed (`kill
-9`, the OOM killer) and restarted keeps its hostname and the kernel, so the next server is PID 1
too and took such a file for a live writer's, leaving it in the vault for an hour (K2 s95).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import secrets
import socket
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from service.errors import AlreadyExists
from service.vault import notelocks

SUFFIX = ".vgtmp"
PROCESS_START = time.time()
DEAD_WRITER_GRACE_SECONDS = 5.0
GRACE_SECONDS = 3600.0
TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.[0-9a-f]{12}(?:\.p(?P<pid>\d+)(?:h(?P<host>[0-9a-f]{8}))?)?\.vgtmp$")
log = logging.getLogger("vaultgate.vault")


def _host_tag() -> str:
    """This kernel instance: the hostname and the boot id (pids are meaningful only within both)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
    except OSError:
        boot = ""
    return hashlib.sha256(f"{socket.gethostname()}\n{boot}".encode()).hexdigest()[:8]


HOST = _host_tag()


def temp_name(target_name: str) -> str:
    """A fresh temp file name for a write replacing `target_name`."""
    return f".{target_name[:40]}.{secrets.token_hex(6)}.p{os.getpid()}h{HOST}{SUFFIX}"


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
    if TEMP_NAME.match(path.name) is None:
        return False
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return False
    return _left(path.name, mtime, now, started)


def _left(name: str, mtime: float, now: float, started: float) -> bool:
    """`is_stale` of the temp file `name` last written at `mtime`."""
    found = TEMP_NAME.match(name)
    if found is None:
        return False
    if mtime >= started:
        return False  # written since this process started: possibly ours, possibly in flight
    age = now - mtime
    pid = int(found["pid"]) if found["pid"] else None
    if pid == os.getpid() and found["host"] == HOST:
        return True  # an earlier process with this pid on this kernel: a container's PID 1 restarted
    if pid is not None and pid != os.getpid() and not _alive(pid):
        return found["host"] == HOST or age > DEAD_WRITER_GRACE_SECONDS
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


def sweep_in(folder_fd: int, rel: str) -> list[str]:
    """`sweep` of the temp files directly in the open folder `folder_fd` (vault path `rel`), looked
    at and removed through it (no link followed): a folder a killed call made, about to be removed
    by its rollback, holds the temp file of the write that was cut (removed by the index's scan
    only later: the folder was left behind, empty). Returns the names removed."""
    now, removed = time.time(), []
    for name in os.listdir(folder_fd):
        if not name.endswith(SUFFIX):
            continue
        try:
            st = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
            if stat.S_ISREG(st.st_mode) and _left(name, st.st_mtime, now, PROCESS_START):
                os.unlink(name, dir_fd=folder_fd)
                removed.append(name)
        except FileNotFoundError:
            continue  # its writer finished or a sweep was first
    if removed:
        log.info("removed %d temp file(s) left by an interrupted write in %s", len(removed), rel or "/")
    return removed


def _temp_in(folder_fd: int, target_name: str) -> tuple[int, str]:
    """A new temp file in the open folder, created with mode 0666 so the umask applies (never
    through a link: `O_EXCL` refuses any existing name, a dangling link included)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = temp_name(target_name)
        try:
            return os.open(name, flags, 0o666, dir_fd=folder_fd), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temp name beside {target_name}")


def write_in(
    folder_fd: int,
    name: str,
    data: bytes,
    *,
    exclusive: bool,
    rel: str,
    check: Callable[[], object] | None = None,
    vault: Path | None = None,
    synced: Callable[[int], None] | None = None,
) -> os.stat_result:
    """Write `data` as `name` in the open folder `folder_fd`: temp file + fsync + rename (or hard
    link for create-only), then fsync the folder. `rel` names the target in errors.

    A new file gets the default mode (0666 minus the umask, as any editor would create it); an
    overwritten file keeps its mode. Returns the written file's stat. A link at `name` is
    replaced by the file, never followed (`VaultFiles._real` resolves links inside the vault
    before a write gets here). `check` runs right before the rename (after the fsync) and may
    raise to abort with nothing replaced: an etag compared there leaves a person's save no
    fsync-long window to be written over. With `vault` (the vault's root; `rel` is then the real
    in-vault path), `check` and the rename run under the note's lock shared with every other
    vaultgate process on the vault (`service.vault.notelocks`): another process's rename cannot
    land between the compare and this rename. `synced`: called with the folder instead of its fsync
    (a chunk of writes fsyncs each of its folders once, when they have all ended: `service.vault.chunks`).
    """
    try:
        fd, tmp = _temp_in(folder_fd, name)
    except OSError as exc:  # a read-only or full file system refuses the temp file itself
        if not isinstance(exc, FileExistsError):
            exc.filename = rel
        raise
    try:
        with os.fdopen(fd, "wb") as fh:
            if not exclusive:
                with contextlib.suppress(FileNotFoundError):
                    st = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode):
                        os.fchmod(fh.fileno(), stat.S_IMODE(st.st_mode))
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            written = os.fstat(fh.fileno())  # the file's size and times (a rename keeps them)
        if exclusive:
            try:
                os.link(tmp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd, follow_symlinks=False)
            except FileExistsError:
                raise AlreadyExists("a file already exists at that path", details={"path": rel}) from None
            os.unlink(tmp, dir_fd=folder_fd)
        else:
            # the compare runs under the note's lock (again if the lock file was re-made meanwhile)
            with notelocks.held(vault, rel, check=check) if vault is not None else contextlib.nullcontext():
                if vault is None and check is not None:
                    check()
                os.rename(tmp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        os.fsync(folder_fd) if synced is None else synced(folder_fd)
        return written
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=folder_fd)
        if isinstance(exc, OSError) and not isinstance(exc, FileExistsError):
            exc.filename = rel  # the vault path, not the bare name (see `oserrors.storage_error`)
        raise
