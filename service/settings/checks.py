"""Start-up checks of the folders a configuration names, all at once.

`folder_problems` says, for every problem, which path and why: a vault folder that cannot be read,
a vault that cannot be written unless it is served read-only (`acl.read_only`), a cache, data or
spool folder that cannot be created or written, a JWKS file that is missing. `vaultgate config
validate` prints them all; `serve` and `stdio` refuse to start with the same list (no traceback).

Writability is probed by creating and removing a temporary dot file (`.vaultgate-probe-*`),
because permission bits alone do not tell: a read-only mount, an ACL or a quota do not show in
them, and a privileged user passes them anyway. Folders that do not exist yet are not created:
the nearest existing parent must be a writable folder.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from service.settings.root import Settings


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _probe_write(folder: Path) -> str | None:
    """None when a file can be created in `folder`, else why not."""
    try:
        fd, name = tempfile.mkstemp(prefix=".vaultgate-probe-", dir=folder)
    except OSError as exc:
        return _reason(exc)
    os.close(fd)
    try:
        os.unlink(name)
    except OSError as exc:
        return f"a probe file could not be removed ({_reason(exc)})"
    return None


def creatable(folder: Path, what: str) -> str | None:
    """Problem text when `folder` (created on start when missing) could not hold our files."""
    here = folder
    while not here.exists():
        if here.parent == here:
            return f"{what} {folder}: no existing parent folder"
        here = here.parent
    if not here.is_dir():
        return f"{what} {folder}: {here} is not a folder"
    why = _probe_write(here)
    if why is not None:
        shown = folder if here == folder else f"{folder} (its parent {here})"
        return f"{what} {shown} is not writable: {why}{_ownership(here)}"
    return None


def _ownership(folder: Path) -> str:
    """Who owns `folder` and who asks, for a permission problem: enough to fix it in one step."""
    try:
        st = folder.stat()
    except OSError:
        return ""
    me = f"uid {os.geteuid()} gid {os.getegid()}" if hasattr(os, "geteuid") else "this user"
    mode = stat.filemode(st.st_mode)
    return (
        f" (owned by uid {st.st_uid} gid {st.st_gid}, mode {mode}; vaultgate runs as {me}: run it as the owner, "
        f"e.g. docker run --user {st.st_uid}:{st.st_gid}, or grant that user access)"
    )


def _read_problem(folder: Path) -> str | None:
    try:
        with os.scandir(folder) as entries:
            next(entries, None)
    except OSError as exc:
        return _reason(exc)
    return None


def folder_problems(settings: Settings) -> list[str]:
    problems: list[str] = []
    for vault in settings.vaults:
        read_only = (vault.acl or settings.acl).read_only
        if not vault.path.is_dir():
            problems.append(f"vault {vault.id!r}: folder {vault.path} does not exist")
            continue
        why = _read_problem(vault.path)
        if why is not None:
            problems.append(f"vault {vault.id!r}: cannot read folder {vault.path}: {why}{_ownership(vault.path)}")
            continue
        if not read_only and (why := _probe_write(vault.path)) is not None:
            problems.append(
                f"vault {vault.id!r}: folder {vault.path} is not writable: {why}{_ownership(vault.path)}; "
                "or serve it read-only with acl.read_only = true"
            )
    places = [("cache folder (storage.cache_dir)", settings.cache_dir())]
    places.append(("data folder (storage.data_dir)", settings.data_dir()))
    if settings.events.spool and settings.events.spool_dir is not None:
        places.append(("event spool folder (events.spool_dir)", settings.events.spool_dir))
    for what, folder in places:
        if (problem := creatable(folder, what)) is not None:
            problems.append(problem)
    jwks = settings.auth.jwks_file
    if settings.auth.mode == "jwt" and jwks is not None:
        try:
            jwks.read_bytes()
        except OSError as exc:
            problems.append(f"auth.jwks_file {jwks}: {_reason(exc)}")
    return problems
