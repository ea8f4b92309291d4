"""The case-only rename's temporary name and its record (`dirfd._via_temp` writes them,
`service.vault.case_renames` finishes a rename a crash cut in two from the record).

On a case-blind disk `meeting notes.md` -> `Meeting Notes.md` goes through a temporary name beside
it (`temp_name`: `meeting notes (renaming 1a2b3c4d).md`); before the first rename, the record
(`case_record`: a hidden `.vgcase` file in the vault folder naming the source, the temporary name
and the destination) is written and synced, and dropped once the rename is on disk.
"""

from __future__ import annotations

import json
import os
from contextlib import suppress
from pathlib import Path

from service.vault import temps
from service.vault.root_link import open_vault_folder

NAME_MAX = 255  # bytes of a name, UTF-8: ext4, APFS; NTFS counts UTF-16 units, never more


def temp_name(name: str, token: str) -> str:
    """The temporary name a case-only rename of `name` goes through: `stem (renaming token).ext`,
    the stem cut (at a character) so the whole fits in `NAME_MAX` bytes; a name whose extension
    leaves no room is cut whole, its extension with it. The same for the same name and token
    (`case_renames` checks a record's temporary name against it)."""
    stem, dot, ext = name.rpartition(".")
    if not stem:  # a folder, or a name without an extension
        stem, dot, ext = name, "", ""
    tail = f" (renaming {token}){dot}{ext}"
    if len(tail.encode()) >= NAME_MAX:
        stem, tail = name, f" (renaming {token})"
    room = NAME_MAX - len(tail.encode())
    return stem.encode()[:room].decode(errors="ignore") + tail


CASE_RECORD = ".vgcase"


def case_record(root: Path, token: str, src: str, temp: str, dst: str) -> str:
    """Write and sync the record of a case-only rename in the vault folder, from which the next
    start finishes one a crash cut in two (`service.vault.case_renames`); returns its name."""
    name = f".{token}.p{os.getpid()}h{temps.HOST}{CASE_RECORD}"
    data = json.dumps({"src": src, "temp": temp, "dst": dst}).encode()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    top = _vault_folder(root)
    try:
        fd = os.open(name, flags, 0o600, dir_fd=top)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.fsync(top)  # the record is on disk before the first rename
    finally:
        os.close(top)
    return name


def drop_case_record(root: Path, name: str) -> None:
    top = _vault_folder(root)
    try:
        with suppress(FileNotFoundError):
            os.unlink(name, dir_fd=top)
    finally:
        os.close(top)


def _vault_folder(root: Path) -> int:
    """The vault folder itself, opened (as `dirfd.folder(root, "")` opens it)."""
    return open_vault_folder(root)
