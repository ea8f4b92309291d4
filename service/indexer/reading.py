"""Reading one note file for the index: its encoding detected, a special file never opened, a
symlink never followed.

`read_note_checked` gives the note as it is on disk now, None when there is nothing to index
there (gone, a folder, a symlink), or a `FileIssue` when the file cannot be indexed (a FIFO,
socket or device; the OS refusing the read). Bytes that are not UTF-8 are read with the encoding
`service.vault.decoding` detects, which the `NoteInput` names. Blocks on the file system: callers
run it in a worker thread or process.

A note longer than the index reads (`[limits] max_indexed_note_chars`, `caps.kept_text`) and
over `HEAD_FROM` bytes is not held whole: its first bytes, which hold every character the index
keeps, are decoded (the encoding named by them), and the content hash and the character count
run over the rest a chunk at a time. A 600 MB note took 2.4 GB to index read whole (its bytes
and its text at once); read so, it takes about `HEAD_FROM` bytes and their text. Its encoding
is the one its head shows (bytes that are not UTF-8 only past the head: read as UTF-8 here).
"""

from __future__ import annotations

import codecs
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from service.errors import PathInvalid
from service.indexer.caps import max_chars
from service.indexer.issues import FileIssue, issue
from service.vault import dirfd
from service.vault.decoding import UTF8, decode_note
from service.vault.etags import ETAG_CHARS, etag_of

HEAD_FROM = 16 * 1024 * 1024  # bytes: a longer note that the index cuts is read for its head only
CHUNK = 1024 * 1024  # bytes hashed and counted at a time past the head
_SINGLE_BYTE = ("cp1252", "latin-1")  # one character a byte


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
    chars: int = -1  # the whole note's characters where `text` is its head only (module text), else -1

    @property
    def whole_chars(self) -> int:
        """The note's length in characters (of its text as decoded), whether `text` is all of it."""
        return len(self.text) if self.chars < 0 else self.chars


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
            head = max(4 * max_chars() + 4, HEAD_FROM)  # a character is at most 4 bytes
            if st.st_size > head and not rel.lower().endswith(".canvas"):  # a canvas is JSON: read whole
                return _head_only(rel, f, head, st.st_mtime, getattr(st, "st_birthtime", st.st_ctime))
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


def _head_only(rel: str, f: BinaryIO, head: int, mtime: float, ctime: float) -> NoteInput:
    """The note read by its first `head` bytes (module text): decoded as `decode_note` decodes
    them (a character cut at their end held back, or replaced past what the index keeps), the
    hash and the characters counted over the whole file, a chunk at a time."""
    data = f.read(head)
    digest = hashlib.sha256(data)
    try:  # an incomplete last character is kept back, not refused
        text, encoding = codecs.getincrementaldecoder(UTF8)().decode(data), UTF8
    except UnicodeDecodeError:
        text, encoding = decode_note(data)
    counter = None if encoding in _SINGLE_BYTE else codecs.getincrementaldecoder(_codec(encoding))(errors="replace")
    size, chars = len(data), 0
    for at in range(_bom(encoding), size if counter is not None else 0, CHUNK):  # a chunk of text at a time
        chars += len(counter.decode(data[at : at + CHUNK]))  # type: ignore[union-attr]
    del data
    while chunk := f.read(CHUNK):
        digest.update(chunk)
        size += len(chunk)
        if counter is not None:
            chars += len(counter.decode(chunk))
    chars = size if counter is None else chars + len(counter.decode(b"", final=True))
    return NoteInput(rel, text, mtime, ctime, size, digest.hexdigest()[:ETAG_CHARS], encoding, chars)


def _codec(encoding: str) -> str:
    """The codec that counts a note's characters as `decode_note` named its encoding."""
    return UTF8 if encoding == "utf-8-replaced" else encoding


def _bom(encoding: str) -> int:
    """The bytes of the byte-order mark `decode_note` left out of a note read as `encoding`."""
    return 4 if encoding.startswith("utf-32") else 2 if encoding.startswith("utf-16") else 0
