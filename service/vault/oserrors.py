"""Operating-system failures on files (and on the server's databases) as structured tool errors.

A permission, a read-only file system, a full disk or a name that is too long is not a server
bug: `storage_error` turns the `OSError` into an error of the `StorageFailed` kind (or
`path_invalid` for a name the file system refuses), with the path relative to the vault when the
file is inside it — never a host path outside it — and `errno` by name. Read-only tools report
a refused permission as `vault_unreadable`, tools that write as `vault_unwritable` (a write tool
that could not read what it is changing is told the same: the folder needs fixing either way).
`database_error` does the same for SQLite's own reports of a read-only, full or failing disk
under the cache or data folder (`details.where = "server storage"`).
"""

from __future__ import annotations

import errno
from pathlib import Path

from service.errors import IoError, PathInvalid, StorageFailed, VaultgateError, VaultUnreadable, VaultUnwritable
from service.vault.temps import TEMP_NAME

_UNWRITABLE = {errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.ETXTBSY}
_DENIED = {errno.EACCES, errno.EPERM}
# The temp file beside a target (`service.vault.temps._temp_in`) names the target it replaces.
_TEMP = TEMP_NAME


def vault_relative(filename: object, root: Path | None) -> str | None:
    """`filename` relative to `root` (forward slashes; a temp file as its target), else None."""
    if root is None or not isinstance(filename, str | Path):
        return None
    path = Path(filename)
    try:
        rel = path.relative_to(root) if path.is_absolute() else path
    except ValueError:
        try:
            rel = path.resolve().relative_to(root.resolve())
        except (OSError, ValueError):
            return None
    if found := _TEMP.match(rel.name):
        rel = rel.with_name(found["name"])
    text = rel.as_posix()
    return "" if text == "." else text


def storage_error(exc: OSError, root: Path | None, *, writing: bool) -> VaultgateError:
    """The structured error for `exc` raised while a tool worked in the vault at `root`."""
    code = exc.errno
    name = errno.errorcode.get(code, "EIO") if isinstance(code, int) else "EIO"
    rel = vault_relative(exc.filename, root)
    details: dict[str, object] = {"errno": name}
    if rel is not None:
        details["path"] = rel
    else:
        details["where"] = "server storage" if exc.filename else "unknown"
    shown = repr(rel) if rel is not None else "a file outside the vault" if exc.filename else "a file"
    reason = exc.strerror or name
    error: StorageFailed | PathInvalid
    if code == errno.ENAMETOOLONG:
        error = PathInvalid(
            f"{shown}: the file system refuses this name ({reason})",
            details=details,
            hint="Use shorter file and folder names (most file systems allow 255 bytes per name).",
        )
    elif code in _UNWRITABLE or (code in _DENIED and writing):
        error = VaultUnwritable(f"cannot write {shown}: {reason}", details=details)
    elif code in _DENIED:
        error = VaultUnreadable(f"cannot read {shown}: {reason}", details=details)
    else:
        error = IoError(f"{shown}: {reason}", details=details)
    return error


# SQLite's messages for the storage failures it reports itself (an OperationalError of either driver).
_DB_FAILURES = {
    "attempt to write a readonly database": ("EROFS", True),
    "database or disk is full": ("ENOSPC", True),
    "disk i/o error": ("EIO", False),
    "unable to open database file": ("EACCES", False),
}


def database_error(exc: Exception) -> VaultgateError | None:
    """The structured error for a database the OS will not let the server use, else None."""
    text = str(exc).lower()
    for message, (name, unwritable) in _DB_FAILURES.items():
        if message in text:
            details: dict[str, object] = {"errno": name, "where": "server storage"}
            what = f"the server's database cannot be used: {exc}"
            hint = "Check the cache and data folders (`vaultgate config validate` names them and says why)."
            if unwritable:
                return VaultUnwritable(what, details=details, hint=hint)
            return IoError(what, details=details, hint=hint)
    return None
