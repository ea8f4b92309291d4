"""What a read of a vault file gives and a write answers: the note's text, etag and times."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from service.vault.decoding import UTF8, decode_note, encode_edit
from service.vault.etags import etag_of, stale_etag
from service.vault.paths import VaultPath


@dataclass(frozen=True, slots=True)
class FileStat:
    size: int
    mtime: float
    ctime: float


@dataclass(frozen=True, slots=True)
class NoteFile:
    path: VaultPath
    content: str
    etag: str
    stat: FileStat
    # What the bytes were read as (`service.vault.decoding`): anything but "utf-8" means `content`
    # is not the bytes exactly; an edit writes it back so (`encode`).
    encoding: str = UTF8


@dataclass(frozen=True, slots=True)
class WriteResult:
    rel: str
    etag: str
    created: bool
    stat: FileStat


def file_stat(st: os.stat_result) -> FileStat:
    return FileStat(size=st.st_size, mtime=st.st_mtime, ctime=getattr(st, "st_birthtime", st.st_ctime))


def note_file(vp: VaultPath, data: bytes, st: os.stat_result) -> NoteFile:
    text, encoding = decode_note(data)
    return NoteFile(path=vp, content=text, etag=etag_of(data), stat=file_stat(st), encoding=encoding)


def encode(text: str, encoding: str = UTF8, rel: str = "") -> bytes:
    """A note's new bytes: UTF-8, or an edited note's text in the encoding it was read with
    (`decoding.encode_edit`: refused where that encoding lacks a character)."""
    return encode_edit(text, encoding, rel)


def changed_note(
    vp: VaultPath, data: bytes, st: os.stat_result, etag: str | None, change: Callable[[str], str]
) -> tuple[NoteFile, bytes]:
    """`VaultFiles.modify`'s note and new bytes (in a worker thread for a long note)."""
    note = note_file(vp, data, st)
    if etag is not None and note.etag != etag:
        raise stale_etag(vp.rel, etag, note.etag)
    return note, encode(change(note.content), note.encoding, vp.rel)
