"""Reading one note file for the index: its encoding detected, a special file never opened, a
symlink never followed.

`read_note_checked` gives the note as it is on disk now, None when there is nothing to index
there (gone, a folder, a symlink), or a `FileIssue` when the file cannot be indexed (a FIFO,
socket or device; the OS refusing the read). Bytes that are not UTF-8 are read with the encoding
`service.vault.decoding` detects, which the `NoteInput` names. Blocks on the file system: callers
run it in a worker thread or process.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from service.indexer.issues import FileIssue, issue
from service.vault.decoding import UTF8, decode_note
from service.vault.etags import etag_of
from service.vault.spelling import on_disk


@dataclass(frozen=True, slots=True)
class NoteInput:
    """One file as read from disk, ready to parse."""

    path: str
    text: str
    mtime: float
    ctime: float
    size: int
    etag: str
    encoding: str = UTF8  # what the bytes were read as (`service.vault.decoding`)


# A special file is never waited on (a FIFO's open blocks until a writer comes), a link never followed.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _open(root: Path, rel: str) -> int:
    """Open the note `rel` (NFC), also where the disk spells its name in another Unicode form
    (an NFD name from macOS: `service.vault.spelling`)."""
    try:
        return os.open(root / rel, _READ_FLAGS)
    except FileNotFoundError:
        spelled = on_disk(str(root), rel)
        if spelled == rel:
            raise
        return os.open(root / spelled, _READ_FLAGS)


def read_note_file(root: Path, rel: str) -> NoteInput | None:
    """A note as it is on disk now, or None when it is gone, unreadable, special or a symlink."""
    item = read_note_checked(root, rel)
    return item if isinstance(item, NoteInput) else None


def read_note_checked(root: Path, rel: str) -> NoteInput | FileIssue | None:
    """A note as it is on disk now; None when it is gone, a folder or a symlink; a `FileIssue` when
    it is a special file or the OS refuses to read it.

    Never index through a link: it could expose a file outside the vault, or a note the ACL
    denies under an allowed name. Reading a link goes through the path ACL instead."""
    try:
        fd = _open(root, rel)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            return None  # the file is a symlink
        return issue(rel, "unreadable", exc.strerror or type(exc).__name__)
    except (ValueError, UnicodeError):  # a NUL or a name the OS cannot take
        return issue(rel, "unreadable", "invalid name")
    try:
        with open(fd, "rb", buffering=0) as f:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                return None
            if not stat.S_ISREG(st.st_mode):
                return issue(rel, "special_file", "not a regular file")
            data = f.readall()
    except OSError as exc:
        return issue(rel, "unreadable", exc.strerror or type(exc).__name__)
    text, encoding = decode_note(data)
    return NoteInput(
        path=rel,
        text=text,
        mtime=st.st_mtime,
        ctime=getattr(st, "st_birthtime", st.st_ctime),
        size=st.st_size,
        etag=etag_of(data),
        encoding=encoding,
    )
