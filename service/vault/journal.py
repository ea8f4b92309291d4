"""The change-journal seam of the vault: what a file was before a change touches it.

`VaultFiles` (and `service.vault.restore`) call `record_file`/`record_folders`/`record_move`
right before they change anything, under the path's lock, in the worker thread that then makes
the change — when a `ChangeRecorder` is set in the current context (`RECORDER`; the worker
thread runs in a copy of the caller's context). An action plan's runner sets one around each
step (`service.plans.journal`), so every write, delete, move, copy or new folder of that step —
including the link rewrites a move makes in other notes — is recorded durably before it happens,
with no extra hop off the event loop. Without a recorder these calls cost one context lookup.
A context variable rather than an argument: a step runs an ordinary tool through the dispatch
chain, and the recorder must follow it down to the file layer without every tool passing it on.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from service.vault import dirfd

ChangeKind = Literal["file", "folder", "move", "void", "stamp"]


@dataclass(frozen=True, slots=True)
class PriorState:
    """One change about to happen.

    `file`: `rel` held `prior` (None: absent) and will hold content with etag `new_etag` (None:
    absent). `folder`: the folder `rel` is about to be created. `move`: the folder `rel` is about
    to be renamed to `dst`, or the note `rel` in letter case only on a case-blind disk, where both
    names reach it, or a note over `max_note_bytes` (`new_etag`: its `stamp_of`, which undo checks
    before moving it back; its bytes are never read: `record_long_move`); any other file move is
    recorded as two `file` changes. `void`: the newest
    earlier `file` or `move` record of `rel` did not happen after all (`withdrawn_if_refused`);
    the journal drops both when the run's records are read (`service.plans.spool.settled`).
    `stamp`: the long note just renamed to `rel` by the newest earlier `move` (its `dst`) has the
    stamp `new_etag` now, ctime included (`record_stamp`); folded into that move when read (`settled`).
    """

    kind: ChangeKind
    rel: str
    prior: bytes | None = None
    new_etag: str | None = None
    dst: str | None = None


class ChangeRecorder(Protocol):
    def record(self, change: PriorState, /) -> None:
        """Make `change` durable before it happens. Called in a worker thread (blocking I/O is
        expected; never on the event loop), possibly from several threads at once."""

    def stopping(self) -> bool:
        """True once the server is stopping: a journaled change stops at its next action and is
        rolled back while its journal is still open (`service.vault.commit`)."""


RECORDER: ContextVar[ChangeRecorder | None] = ContextVar("vaultgate_change_recorder", default=None)


def read_prior(root: Path, rel: str) -> bytes | None:
    """The bytes at `rel` now (None: absent), read through no link (`path_invalid` when one is
    on the way: the change it was about to record is refused too)."""
    try:
        return dirfd.read_bytes(root, rel)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def record_file(root: Path, rel: str, new_etag: str | None, prior: bytes | None = None) -> None:
    """Record `rel` (`prior`: its bytes when the caller has them) before it becomes `new_etag`
    (None: deleted). `rel` is the real in-vault path the change is made at (no link on the way).
    Worker thread only."""
    recorder = RECORDER.get()
    if recorder is not None:
        recorder.record(PriorState("file", rel, prior if prior is not None else read_prior(root, rel), new_etag))


def record_folders(root: Path, folders: list[Path]) -> None:
    """Record folders about to be created (`missing_folders` order: deepest first). Worker thread only."""
    recorder = RECORDER.get()
    if recorder is not None:
        for folder in reversed(folders):  # outermost first: undone newest first, so innermost first
            recorder.record(PriorState("folder", folder.relative_to(root).as_posix()))


def record_move(rel: str, dst: str, stamp: str | None = None) -> None:
    """Record the folder (or case-only renamed note; a long note with its `stamp`) `rel` about to be
    renamed to `dst`. Worker thread only."""
    recorder = RECORDER.get()
    if recorder is not None:
        recorder.record(PriorState("move", rel, new_etag=stamp, dst=dst))


def _regular(root: Path, rel: str) -> os.stat_result | None:
    """The `lstat` of the regular file at `rel`, walked to without links (None: none there)."""
    try:
        with dirfd.parent_of(root, rel) as (opened, name):
            st = dirfd.lstat_in(opened, name)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return st if st is not None and stat.S_ISREG(st.st_mode) else None


# A stamp: `stat:<size>:<mtime_ns>:<inode>[:<ctime_ns>]`. The ctime changes on every write and
# metadata change and cannot be set back by a user (`touch -r` or an editor restoring the mtime
# can set the mtime), but a rename sets it too (measured on ext4 and tmpfs, Linux 6.18: a rename in
# or across folders, a link or unlink of another name). So a move is recorded before its rename
# without it (`loose`: the rename is about to change it), and right after the rename the stamp
# with the ctime the rename gave is recorded (`record_stamp`) and replaces the move's. A stamp
# without a ctime (a process killed between the two records, a journal written before) is
# compared without it (`same_note`), and so is an older move of a note an undo just moved back
# itself (`service.plans.undo._moved_note`: that undo's own rename changed it).


def _stamp(st: os.stat_result) -> str:
    return f"stat:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:{st.st_ctime_ns}"


def loose(stamp: str) -> str:
    """`stamp` without its ctime (what a rename of the note keeps)."""
    return ":".join(stamp.split(":")[:4])


def same_note(recorded: str | None, now: str | None) -> bool:
    """Whether the stamp `now` is the note `recorded` stamped: the same size, mtime and inode, and
    the same ctime when both carry one."""
    if recorded is None or now is None or not (recorded.startswith("stat:") and now.startswith("stat:")):
        return recorded == now
    if recorded.count(":") == now.count(":"):
        return recorded == now
    return loose(recorded) == loose(now)


def stamp_of(root: Path, rel: str) -> str | None:
    """What a note moved whole is checked by before it is moved back: its size, modification time,
    inode and ctime (a rename keeps the first three; an edit, a save in place of it or an mtime set
    back changes the ctime at least) (None: no regular file there; a link is not followed).
    Nothing is read: one `lstat`."""
    st = _regular(root, rel)
    return None if st is None else _stamp(st)


def record_long_move(
    root: Path, rel: str, dst: str, limit: int | None, folders: list[Path] | None = None, *, replacing: bool = False
) -> str | None:
    """Record the move of the note `rel` to `dst` as one `move` with its `loose` stamp when it is a
    regular file over `limit` bytes (`[limits] max_note_bytes`): reading it whole for its bytes
    cost a 600 MB note 14 s and 1.9 GB (its undo 28 s, 3.7 GB). A delete to the trash is such a
    move too (`VaultFiles._delete_sync`; `folders`: the trash folders it makes, recorded first).
    `replacing`: the move replaces the file at `dst`, recorded first as a `file` going absent (its
    bytes, which undo writes back once the note has moved back). Returns the stamp recorded, for
    `record_stamp` once renamed; None (nothing recorded): the caller records its bytes. Worker
    thread only, under the paths' locks."""
    st = over(root, rel, limit)
    if st is None:
        return None
    record_folders(root, folders or [])
    if replacing:
        record_file(root, dst, None)
    stamp = loose(_stamp(st))
    record_move(rel, dst, stamp)
    return stamp


def over(root: Path, rel: str, limit: int | None) -> os.stat_result | None:
    """The `lstat` of the regular file `rel` when it is over `limit` bytes (`[limits] max_note_bytes`), else None."""
    st = None if limit is None else _regular(root, rel)
    return st if st is not None and limit is not None and st.st_size > limit else None


def withdraw(rel: str) -> None:
    """Right after the removal of the note `rel` that the running call made itself (its create
    recorded in this journal; bulk_create_notes' and the memory store's undo of a create: a long
    note's bytes are then never read for a record): a `void` record withdraws that create
    (`service.plans.spool.settled` drops both). Killed before it, the create's record finds the note
    gone already: its rollback leaves it (untouched). Worker thread only, under the note's lock."""
    recorder = RECORDER.get()
    if recorder is not None:
        recorder.record(PriorState("void", rel))


def record_stamp(root: Path, rel: str, before: str) -> str:
    """Right after our own rename of the long note stamped `before` to `rel`: its stamp now, ctime
    included, recorded (a `stamp` record) and returned. A file at `rel` that is not that note any
    more (replaced in between) keeps `before`, which it then fails. Worker thread only, under the lock."""
    now = stamp_of(root, rel)
    if now is None or loose(now) != loose(before):
        return before
    recorder = RECORDER.get()
    if recorder is not None:
        recorder.record(PriorState("stamp", rel, new_etag=now))
    return now


@contextlib.contextmanager
def withdrawn_if_refused(
    rels: list[str], within: contextlib.AbstractContextManager[object] | None = None
) -> Iterator[Callable[[], None]]:
    """Around a rename recorded just before (`rels`: the real paths of its `file`/`move` records,
    and of the `folder` records of the folders it makes);
    yields the callback `dirfd.rename` calls once the rename took effect (`renamed`), inside
    `within` (a delete's note lock and last compare, refused there too: `VaultFiles._delete_sync`;
    an unlink or rename that ends without an error inside it took effect). A rename
    that fails before that changed nothing — refused with FileExistsError (`replace=False`:
    another program created the destination meanwhile), the source gone (another program deleted
    or moved it after the server looked), EACCES, EXDEV, a folder name on the way refused — so its
    records are withdrawn, and undo never sees another program's file (or absence) as a change of
    the run (a conflict). A failure after it (fsync) keeps them: the rename happened. Worker thread
    only, under the paths' locks (no other record of these paths in between)."""
    took: list[bool] = []
    try:
        with within if within is not None else contextlib.nullcontext():
            yield lambda: took.append(True)
    except Exception:
        recorder = RECORDER.get()
        if recorder is not None and not took:
            for rel in rels:
                recorder.record(PriorState("void", rel))
        raise


def recording() -> bool:
    return RECORDER.get() is not None


def stop_requested() -> bool:
    """Whether the journaled change running in this context is asked to stop (the server is stopping)."""
    recorder = RECORDER.get()
    return recorder is not None and recorder.stopping()
