"""Reading one note file for the index: its encoding detected, a special file never opened, a
symlink never followed.

`read_note_checked` gives the note as it is on disk now, None when there is nothing to index
there (gone, a folder, a symlink), or a `FileIssue` when the file cannot be indexed (a FIFO,
socket or device; the OS refusing the read). Bytes that are not UTF-8 are read with the encoding
`service.vault.decoding` detects, which the `NoteInput` names. Blocks on the file system: callers
run it in a worker thread or process.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from service.errors import PathInvalid
from service.indexer.issues import FileIssue, issue
from service.vault import dirfd
from service.vault.decoding import UTF8, decode_note
from service.vault.etags import etag_of


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


def read_note_file(root: Path, rel: str) -> NoteInput | None:
    """A note as it is on disk now, or None when it is gone, unreadable, special or a symlink."""
    item = read_note_checked(root, rel)
    return item if isinstance(item, NoteInput) else None


def read_note_checked(root: Path, rel: str) -> NoteInput | FileIssue | None:
    """A note as it is on disk now; None when it is gone, a folder or a symlink; a `FileIssue` when
    it is a special file or the OS refuses to read it.

    Never index through a link: it could expose a file outside the vault, or a note the ACL
    denies under an allowed name. Reading a link goes through the path ACL instead. The file is
    opened as the write path opens it (`service.vault.dirfd`), never through a link anywhere on
    the way: a folder swapped for a link to outside the vault after the change was seen (a
    watcher event, a write's index update) is not read through. Before, only the file itself was
    opened with O_NOFOLLOW, and the outside file's text was indexed and searchable under the
    vault path. A name the disk spells in another Unicode form (NFD) is found as the walk finds it."""
    try:
        fd, st = dirfd.open_file(root, rel)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except PathInvalid as exc:
        if exc.details.get("reason") == "special file":
            return issue(rel, "special_file", "not a regular file")
        return None  # a link, the file itself or a folder on the way: nothing of the vault's there
    except OSError as exc:
        return issue(rel, "unreadable", exc.strerror or type(exc).__name__)
    except (ValueError, UnicodeError):  # a NUL or a name the OS cannot take
        return issue(rel, "unreadable", "invalid name")
    try:
        with open(fd, "rb", buffering=0) as f:
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
