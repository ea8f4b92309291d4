"""Temp files of atomic writes, and the ones a crash left behind.

An atomic write (`service.vault.files`) writes `.<name>.<random>.p<pid>.vgtmp` beside its target,
fsyncs it and renames it over the target; a process killed in between leaves the temp file. The
indexer's disk scan lists them and `sweep` removes the stale ones: written before this process
started (so not by it), and either by a process that no longer exists on this host (after a
few seconds' grace) or, when the writer cannot be told (no pid in the name, or the pid is alive
— maybe another vaultgate on the same vault, maybe a reused pid), after `GRACE_SECONDS`. A temp
file another live process may still be writing is never removed.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import time
from collections.abc import Iterable
from pathlib import Path

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
