"""A running run's journal as an append-only file: one record per change, before the change.

While a run is running, each change it is about to make is appended to `<spool>/<run_id>.jnl`
(the spool folder sits beside the state database, `Journal.spool`) with one `write` system call
from the worker thread that then makes the change: once `write` has returned the record is in
the operating system, so a process killed at any later point leaves it behind. When the run
closes, its records are moved into `plan_journal` rows in the same transaction that closes the
run, and the file is removed; at start-up a file left by a dead process is moved in the same way
(`service.plans.journal`). A file is never read while its run writes to it.

Format, little-endian: the header `VGJ1\\n`, then records `<u32 body length><u32 crc32(body)><body>`,
the body being `<u32 meta length><meta: JSON {seq, step, kind, path, dst, etag, absent, at}><prior
bytes>`. A record is complete or the file ends (a power loss may leave a torn last record; a
process kill cannot, `write` to a regular file is not cut short by it): `read_records` stops at
the first record that is short or whose checksum is wrong, since the change it announced had not
started. Like the state database's commits (`synchronous=NORMAL`), a record is not synced to disk
one by one: it survives the process, not necessarily a power loss in the middle of the run.
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

from service.vault.journal import PriorState

MAGIC = b"VGJ1\n"
_HEAD = struct.Struct("<II")  # body length, crc32 of the body
_META = struct.Struct("<I")  # meta length
SUFFIX = ".jnl"

# seq, step id, kind, path, dst, prior bytes (None: absent), new etag, time recorded
Row = tuple[int, str, str, str, str | None, bytes | None, str | None, float]


def encode(seq: int, step_id: str, change: PriorState, at: float) -> bytes:
    """One record (header included) for `change`."""
    meta = json.dumps(
        {
            "seq": seq,
            "step": step_id,
            "kind": change.kind,
            "path": change.rel,
            "dst": change.dst,
            "etag": change.new_etag,
            "absent": change.prior is None,
            "at": at,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()
    body = b"".join((_META.pack(len(meta)), meta, change.prior or b""))
    return _HEAD.pack(len(body), zlib.crc32(body)) + body


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def open_spool(path: Path) -> int:
    """Create the run's spool file (its header written) and return an append descriptor."""
    try:
        fd = _open(path)
    except FileNotFoundError:  # the first spool of this data folder
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = _open(path)
    try:
        if os.fstat(fd).st_size == 0:
            write_all(fd, MAGIC)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open(path: Path) -> int:
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o600)


def read_records(data: bytes) -> Iterator[Row]:
    """The complete records of a spool file's bytes, in order (a torn tail is dropped)."""
    if not data.startswith(MAGIC):
        return
    offset = len(MAGIC)
    while offset + _HEAD.size <= len(data):
        length, crc = _HEAD.unpack_from(data, offset)
        start = offset + _HEAD.size
        body = data[start : start + length]
        if len(body) < length or length < _META.size or zlib.crc32(body) != crc:
            return
        (meta_len,) = _META.unpack_from(body)
        meta = json.loads(body[_META.size : _META.size + meta_len])
        prior = None if meta["absent"] else bytes(body[_META.size + meta_len :])
        yield (meta["seq"], meta["step"], meta["kind"], meta["path"], meta["dst"], prior, meta["etag"], meta["at"])
        offset = start + length


def settled(rows: list[Row]) -> list[Row]:
    """The records of changes that happened: a `void` record (a rename refused after it was
    recorded, `service.vault.journal.withdrawn_if_refused`) takes away the newest earlier `file`,
    `move` or `folder` record of its path (a folder the refused change was to make), and is dropped
    itself. A `stamp` record (`service.vault.journal.record_stamp`) becomes the etag of the newest
    earlier `move` to its path, and is dropped itself."""
    kept: list[Row | None] = []
    for row in rows:
        if row[2] == "stamp":
            _stamped(kept, row)
            continue
        if row[2] != "void":
            kept.append(row)
            continue
        for i in range(len(kept) - 1, -1, -1):
            earlier = kept[i]
            if earlier is not None and earlier[3] == row[3] and earlier[2] in ("file", "move", "folder"):
                kept[i] = None
                break
    return [row for row in kept if row is not None]


def _stamped(kept: list[Row | None], stamp: Row) -> None:
    for i in range(len(kept) - 1, -1, -1):
        earlier = kept[i]
        if earlier is not None and earlier[2] == "move" and earlier[4] == stamp[3]:
            kept[i] = (*earlier[:6], stamp[6], earlier[7])
            return


def spool_files(folder: Path) -> dict[str, Path]:
    """run id -> its spool file, for every spool file in `folder`."""
    try:
        return {p.name[: -len(SUFFIX)]: p for p in folder.iterdir() if p.name.endswith(SUFFIX)}
    except FileNotFoundError:
        return {}
