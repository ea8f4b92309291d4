"""Putting files back as a journal recorded them (undo of an action plan).

`restore_file` makes `rel` hold exactly the recorded bytes again (or be absent), under the path's
lock, after checking that the file is what the journal says the change left (`expect_etag`:
anything else is someone else's edit, a `conflict`). `unmove` renames a moved folder back,
`remove_folder` removes a folder the change created when it is empty again. Each is recorded in
the current journal first (`service.vault.journal`), so an undo is itself undoable (a redo), and
each change is published on the vault's change bus so the index follows it.
Paths come from the journal (written by `VaultFiles`), so they may lie in the trash folder; they
are real in-vault paths, and every change is made relative to the folder opened without following
links (`service.vault.dirfd`): a folder swapped for a symlink since fails the restore, never
writes outside.
"""

from __future__ import annotations

import asyncio
import contextlib
from functools import partial
from pathlib import Path
from typing import Literal

from service.errors import Conflict, PathInvalid
from service.vault import dirfd, journal, notelocks, temps
from service.vault.events import FileChange
from service.vault.files import VaultFiles, etag_of
from service.vault.paths import VaultPath
from service.vault.temps import write_in


def _abs(files: VaultFiles, rel: str) -> Path:
    target = files.paths.root / rel
    if files.paths.root not in target.parents:
        raise ValueError(f"journal path {rel!r} is outside the vault")
    return target


def current_etag(files: VaultFiles, rel: str) -> str | None:
    """`dirfd.etag_at` (as `VaultFiles.current_etag`) of a journal's path, refused outside the vault."""
    _abs(files, rel)
    return dirfd.etag_at(files.paths.root, rel)


def _still(files: VaultFiles, rel: str, expect_etag: str | None) -> None:
    """`conflict` unless `rel` is what the change left (`expect_etag`), checked right before the
    rename or unlink: a save landing while the restored bytes were written is never replaced."""
    current = current_etag(files, rel)
    if current != expect_etag:
        raise Conflict(
            f"{rel!r} changed since the plan wrote it",
            details={"path": rel, "expected_etag": expect_etag, "current_etag": current},
        )


def _put_back(
    files: VaultFiles, rel: str, target: Path, data: bytes | None, new_etag: str | None, expect_etag: str | None
) -> None:
    """Journal, then write `data` to `target` or remove it (None), if `rel` is still `expect_etag`
    (worker thread)."""
    if data is not None and journal.recording():
        journal.record_folders(files.paths.root, files.missing_folders(VaultPath(rel=rel, abs=target)))
    root = files.paths.root
    journal.record_file(root, rel, new_etag)
    check = partial(_still, files, rel, expect_etag)
    if data is None:
        with notelocks.held(root, rel, check=check):  # no other process writes between the check and the unlink
            dirfd.unlink(root, rel)
    else:
        with dirfd.parent_of(root, rel, create=True) as (folder, name):
            write_in(folder.fd, name, data, exclusive=False, rel=rel, check=check, vault=root)


def _move_back(files: VaultFiles, rel: str, dst: str, replace: bool, stamp: str | None) -> str | None:
    root = files.paths.root
    now = None if stamp is None else journal.stamp_of(root, dst)
    if stamp is not None and (now is None or not journal.same_note(stamp, now)):
        raise _not_back(rel, dst, "changed since")  # compared under the lock, right before the rename
    journal.record_move(dst, rel, None if now is None else journal.loose(now))  # the rename changes its ctime:
    dirfd.rename(root, dst, rel, replace=replace)
    return None if now is None else journal.record_stamp(root, rel, now)  # a redo checks the one it has now


def _not_back(rel: str, dst: str, reason: str) -> Conflict:
    return Conflict(f"{dst!r} cannot be moved back to {rel!r}", details={"path": dst, "to": rel, "reason": reason})


async def restore_file(files: VaultFiles, rel: str, data: bytes | None, expect_etag: str | None) -> None:
    """Make `rel` hold `data` (None: absent), if it is still what the change left (`expect_etag`)."""
    target = _abs(files, rel)
    async with files.lock(rel), files._writes:
        _still(files, rel, expect_etag)
        current = expect_etag
        new_etag = etag_of(data) if data is not None else None
        if new_etag == current:
            return
        await asyncio.to_thread(_put_back, files, rel, target, data, new_etag, expect_etag)
    kind: Literal["created", "modified", "deleted"] = (
        "deleted" if data is None else ("created" if current is None else "modified")
    )
    await files.bus.publish([FileChange(kind, rel)])


async def unmove(files: VaultFiles, rel: str, dst: str, stamp: str | None = None) -> str | None:
    """Rename the folder moved from `rel` to `dst` back, or the note renamed in letter case only on a
    case-blind disk (where `rel` reaches it too), or the long note moved with its `stamp`
    (`journal.record_long_move`: still that file, unchanged; returns its stamp once moved back, which
    putting it back again checks); a `conflict` when that is no longer possible."""
    src, moved = _abs(files, rel), _abs(files, dst)
    first, second = sorted((rel, dst))
    async with files.lock(first), files.lock(second), files._writes:
        if not (moved.is_dir() or moved.is_file()) or (src.exists() and not dirfd.one_entry(src, moved)):
            raise _not_back(rel, dst, "moved or replaced since")
        # a note never onto a file that arrived meanwhile (its own other spelling: `dirfd._via_temp`)
        left = await asyncio.to_thread(_move_back, files, rel, dst, moved.is_dir(), stamp)
    await files.bus.publish([FileChange("moved", rel, old_path=dst)])
    return left


async def set_aside(files: VaultFiles, rel: str, expect_etag: str | None) -> tuple[str, str | None]:
    """Move the note at `rel` to the trash if it is still what the change left (`expect_etag`):
    how an undo takes away a note over `max_note_bytes` a run wrote. A delete to the trash journals
    it as a move with its stamp (`journal.record_long_move`), so neither the undo's journal nor its
    own put-back holds its bytes; returns the trash path and the stamp `unmove` puts it back by."""
    vp = VaultPath(rel=rel, abs=_abs(files, rel))
    trash = await files.delete(vp, permanent=False, expected_etag=expect_etag)
    assert trash is not None
    return trash, journal.stamp_of(files.paths.root, trash)


def remove_folder(files: VaultFiles, rel: str) -> bool:
    """Remove a folder the change created, if it is empty but for the temp files of writes that
    were cut (`temps.sweep_in`: a killed call's rollback); True when it is gone."""
    _abs(files, rel)
    with contextlib.suppress(OSError, PathInvalid), dirfd.folder(files.paths.root, rel) as opened:
        temps.sweep_in(opened.fd, rel)
    return dirfd.rmdir(files.paths.root, rel)


def folder_exists(files: VaultFiles, rel: str) -> bool:
    return _abs(files, rel).is_dir()
