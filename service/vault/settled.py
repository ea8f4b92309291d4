"""Reads that tell whether a note's version can be known again by its `stat` alone.

A later page of a long note (bundle_files, bundle_folder) resumes only when the note is the
version the first page read (its etag). Hashing the whole note again for that cost a 50 MB
note's page ~115 ms of CPU (read, decode, SHA-256) for a page of 100 KB. A `Settled` key — the
file's device, inode, size, mtime and ctime in nanoseconds — names a version when the read that
made it saw the same key before and after it, and the file's last change (mtime and ctime) was
`RACY_NS` or more before the read began: any later change to the file sets its ctime (which no
caller can set back) to a later time than the read's start, so the key differs. A change within
the same tick of a coarse file-system clock as the read is what the margin leaves out ("racy
git": a file changed that recently is hashed again, its key not kept). `read_range` reads bytes
of the file only while its key is still the one given.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, BinaryIO

from service.vault.notefile import NoteFile, note_file

if TYPE_CHECKING:
    from service.vault.files import VaultFiles
    from service.vault.paths import VaultPath

Settled = tuple[int, int, int, int, int]
RACY_NS = 2_000_000_000  # a file changed less than this before a read is not known by its stat


def key_of(st: os.stat_result) -> Settled:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read_settled(files: VaultFiles, vp: VaultPath) -> tuple[NoteFile, Settled | None]:
    """`files.read(vp)` (the same errors: a note over `[limits] max_note_bytes` is refused before
    any byte is read, `service.vault.notesize`), and the key its version is known by, or None when
    the file changed during the read or too shortly before it (module doc)."""

    def read(fh: BinaryIO) -> tuple[bytes, os.stat_result, os.stat_result, int]:
        began = time.time_ns()
        before = os.fstat(fh.fileno())
        data = fh.read()
        return data, before, os.fstat(fh.fileno()), began

    data, before, after, began = files.scan(vp, read, bounded=True)
    key = key_of(before)
    settled = (
        key == key_of(after)
        and len(data) == before.st_size
        and max(before.st_mtime_ns, before.st_ctime_ns) < began - RACY_NS
    )
    return note_file(vp, data, before), key if settled else None


def read_range(files: VaultFiles, vp: VaultPath, key: Settled, start: int, end: int) -> bytes | None:
    """Bytes `start` to `end` of the file while its key is `key` (before and after the read), else None."""

    def read(fh: BinaryIO) -> bytes | None:
        if key_of(os.fstat(fh.fileno())) != key:
            return None
        fh.seek(start)
        data = fh.read(end - start)
        return data if key_of(os.fstat(fh.fileno())) == key else None

    return files.scan(vp, read)
