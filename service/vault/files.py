"""Reading and writing vault files: atomic, etag-checked, serialized per path.

Guarantees:
- a write never leaves a half-written file: the new bytes go to a temp file in the same folder,
  are fsynced, then renamed over the target (and the folder fsynced);
- a write, delete, move or new folder never lands outside the vault: the folder it changes is
  opened once, walking from the root without following links, and every step (temp file, rename,
  unlink, mkdir) is made relative to that descriptor (`service.vault.dirfd`); a folder swapped
  for a symlink meanwhile fails the call with `path_invalid` and nothing is changed;
- `expected_etag` (the content hash a caller read) is compared under the per-path lock, so a concurrent
  edit turns into `conflict` instead of a lost update; read-modify-write helpers (`modify`) hold that
  lock across the read and the write; a journaled write compares the bytes its journal records;
- at most `max_concurrent` writes run at once per vault; deletes move to the trash unless `permanent`;
- a note whose file the server's user may not write (chmod a-w) is not changed, moved nor deleted;
- every change is published on the vault's `ChangeBus` before the call returns.
"""

from __future__ import annotations

import asyncio
import os
import stat as stat_mode
import weakref
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import BinaryIO, TypeVar

from service.errors import AlreadyExists, Conflict, NoteNotFound, PathInvalid
from service.vault import casing, chunks, dirfd, journal, notelocks, notesize, offloop, reread
from service.vault.etags import etag_of as etag_of
from service.vault.etags import same_etag, stale_etag
from service.vault.events import ChangeBus, FileChange, written
from service.vault.listings import FolderListings
from service.vault.notefile import FileStat, changed_note, encode, note_file
from service.vault.notefile import NoteFile as NoteFile
from service.vault.notefile import WriteResult as WriteResult
from service.vault.notefile import file_stat as _file_stat
from service.vault.paths import VaultPath, VaultPaths, realpath_now, renamed, trash_copy
from service.vault.readonly import refuse_read_only
from service.vault.temps import write_in
from service.vault.walk import walk

R = TypeVar("R")


class VaultFiles:
    """File operations for one vault. All paths come in as caller strings or `VaultPath`s."""

    def __init__(self, paths: VaultPaths, bus: ChangeBus, *, max_concurrent: int, trash_folder: str) -> None:
        self.paths, self.bus = paths, bus
        self.max_note_bytes: int | None = None  # [limits]: the longest note read whole (`notesize`; `Vault.open`)
        self.trash_folder = trash_folder
        self._writes = asyncio.Semaphore(max_concurrent)
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self.listings = FolderListings(paths)
        self.creating = partial(casing.creating, paths.root, lock=self.lock)  # held around a create
        dirfd.arm_single_open(paths.root)

    def lock(self, rel: str) -> asyncio.Lock:
        return self._locks.get(rel) or self._locks.setdefault(rel, asyncio.Lock())

    def writing(self, rel: str) -> asyncio.Lock | None:
        """The lock of a write to `rel` in progress now (None: no vaultgate write holds it)."""
        return lock if (lock := self._locks.get(rel)) is not None and lock.locked() else None

    # -- reads -------------------------------------------------------------------------------

    def read(self, vp: VaultPath, *, bounded: bool = True) -> NoteFile:
        """The note at `vp`, read through no link that leads out of the vault (not even a folder
        swapped for one since `vp` was resolved): links inside the vault are resolved first and
        the real path is walked without following any (`service.vault.dirfd`); a FIFO or other
        special file is never read (`path_invalid`).

        A path with no link when it was resolved is first opened as it is, refusing a link
        anywhere (`dirfd.read_plain`): the check `_real` makes before the walk is then implied.
        A note over `max_note_bytes` is refused, nothing read (`notesize`), unless not `bounded`."""
        check = notesize.bound(vp.rel, self.max_note_bytes) if bounded else None
        if vp.real_rel is None and (got := dirfd.read_plain(self.paths.root, vp.rel, check)) is not None:
            return note_file(vp, *got)
        return note_file(vp, *self._read_raw(vp, self._real(vp)[0], check=check))

    def read_bytes(self, vp: VaultPath) -> bytes:
        """The file's bytes, read through no link out of the vault (not even one swapped in since resolved)."""
        try:
            return dirfd.read_bytes(self.paths.root, self._real(vp)[0])
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise NoteNotFound(f"no file at {vp.rel!r}", details={"path": vp.rel}) from None

    def stat(self, vp: VaultPath) -> FileStat:
        try:
            return _file_stat(vp.abs.stat())
        except (FileNotFoundError, NotADirectoryError):
            raise NoteNotFound(f"no note at {vp.rel!r}", details={"path": vp.rel}) from None

    def current_etag(self, vp: VaultPath) -> str | None:
        return dirfd.etag_at(self.paths.root, self._real(vp)[0])  # a long note is never held whole

    def has_note(self, vp: VaultPath) -> bool:
        """`current_etag(vp) is not None` (same errors) with nothing read or hashed: the file is
        opened as a read opens it and closed (a 100 MB note's existence cost 0.1-0.3 s of hashing)."""
        try:
            return dirfd.is_file(self.paths.root, self._real(vp)[0])
        except (FileNotFoundError, NotADirectoryError):
            return False

    def walk(
        self,
        folder: VaultPath,
        *,
        recursive: bool = True,
        readable: Callable[[str], bool] | None = None,
        max_depth: int | None = None,
    ) -> Iterator[tuple[str, os.DirEntry[str]]]:
        """Visible entries below `folder` (`service.vault.walk.walk`)."""
        return walk(self.paths, folder, recursive=recursive, readable=readable, max_depth=max_depth)

    # -- writes ------------------------------------------------------------------------------

    def _real(self, vp: VaultPath) -> tuple[str, Path]:
        """Where a write to `vp` lands: through an in-vault symlink, its target (re-checked now).
        Renaming a temp file over a symlink would replace the link with a regular file and leave
        the note it pointed at unchanged; writing to the resolved target keeps the link intact."""
        if vp.real_rel is None and not vp.abs.is_symlink():
            return vp.rel, vp.abs
        real = Path(realpath_now(vp.abs, vp.rel))
        rel = self.paths.from_abs(real)
        if rel is None or not rel:
            raise PathInvalid(
                f"{vp.rel!r} resolves outside the vault or into a hidden folder",
                details={"path": vp.rel, "reason": "symlink leaves the vault"},
            )
        return rel, real

    def check_new(self, vp: VaultPath, *, file: bool, itself: str | None = None) -> None:
        """Refuse names this vault may not create (`VaultPaths.check_new_name`; a case twin, `casing`,
        but of `itself`, a move's source): the folders a change to `vp` makes, `vp` when `file`."""
        casing.refuse_case_twin(self.paths.root, vp.rel, itself=itself)
        for folder in self.missing_folders(vp):
            self.paths.check_new_name(folder.relative_to(self.paths.root).as_posix(), folder.name)
        if file:
            self.paths.check_new_name(vp.rel, vp.name)

    def check_etag(self, vp: VaultPath, expected_etag: str | None, *, gone_is_stale: bool = False) -> bool:
        """Compare under the lock; returns whether the file existed (without an etag to compare:
        `has_note`, nothing hashed). An `expected_etag` for a file gone in between is a `conflict` too,
        so nothing is written (a caller's etag for no file at all is `note_not_found`: `stale_etag`,
        checked before, or here with `gone_is_stale`)."""
        if expected_etag is None:
            return self.has_note(vp)
        current = self.current_etag(vp)
        if current is None and gone_is_stale:
            raise stale_etag(vp.rel, expected_etag, None)
        same_etag(vp.rel, expected_etag, current)
        return current is not None

    def _prior_compared(self, vp: VaultPath, key: str, expected: str | None) -> bytes | None:
        """`check_etag` on the bytes a journaled write records (`_journal`): one read, not two (None: not one)."""
        if expected is None or not journal.recording() or vp.real_rel is not None or key != vp.rel:
            return None
        prior = journal.read_prior(self.paths.root, key)
        same_etag(vp.rel, expected, prior if prior is None else etag_of(prior))
        return prior or b""  # None is a conflict

    async def write(
        self,
        vp: VaultPath,
        content: str | bytes,
        *,
        expected_etag: str | None = None,
        create_only: bool = False,
        must_exist: bool = False,
        publish: bool = True,
        encoding: str = "utf-8",
    ) -> WriteResult:
        """`publish=False` for Obsidian's own settings files (`.obsidian/…`), which are not vault
        content: the index and resource subscribers never hear of them. `encoding`: an edit's, the note's
        as read (`notefile.encode`: kept; a text it cannot hold is refused). Bytes: written as they are (an undo's)."""
        data = content if isinstance(content, bytes) else encode(content, encoding, vp.rel)
        key, dest = self._real(vp)
        async with self.lock(key), self.creating(vp.rel), self._writes:
            done = (vp, key, dest, data, expected_etag, create_only, must_exist)
            existed, etag, st = await chunks.in_thread(self._checked_write, *done)  # one hop, nothing on the loop
            result = WriteResult(rel=vp.rel, etag=etag, created=not existed, stat=_file_stat(st))
        if publish:
            await self.bus.publish(written("created" if result.created else "modified", vp.rel, key))
        return result

    def _checked_write(
        self, vp: VaultPath, key: str, dest: Path, data: bytes, expected: str | None, create_only: bool, exists: bool
    ) -> tuple[bool, str, os.stat_result]:
        """`write`'s work under its locks, in its worker thread (`exists`: its `must_exist`): whether the note
        existed (its etag compared), its new etag and the written file's stat."""
        prior = self._prior_compared(vp, key, expected)  # journaled: the bytes compared are the ones recorded
        existed = prior is not None or self.check_etag(vp, expected)
        if create_only and existed:
            raise AlreadyExists(f"a note already exists at {vp.rel!r}", details={"path": vp.rel})
        if exists and not existed:
            raise NoteNotFound(f"no note at {vp.rel!r}", details={"path": vp.rel})
        if existed:  # one made read-only (chmod a-w) is not changed: `readonly`
            refuse_read_only(dest, vp.rel)
        else:
            self.check_new(vp, file=True)
        # Compared again right before the rename: an editor's save meanwhile is a `conflict`, never lost.
        check = None if expected is None else partial(self.check_etag, vp, expected)
        etag = etag_of(data)
        return existed, etag, self._write_sync(vp, key, dest, data, etag, create_only, check, prior)

    def _journal(self, vp: VaultPath, key: str, dest: Path, new_etag: str | None, prior: bytes | None = None) -> None:
        """Record the folders and the file a change is about to create or replace (`journal`; in the
        worker thread that makes the change; `prior`: the file's bytes when read already)."""
        if journal.recording():
            journal.record_folders(self.paths.root, self.missing_folders(vp))
            journal.record_file(self.paths.root, key, new_etag, prior)

    def _write_sync(
        self,
        vp: VaultPath,
        key: str,
        dest: Path,
        data: bytes,
        etag: str,
        exclusive: bool,
        check: Callable[[], object] | None,
        prior: bytes | None = None,
    ) -> os.stat_result:
        if dest.is_dir():
            raise PathInvalid(f"{vp.rel!r} is a folder", details={"path": vp.rel})
        self._journal(vp, key, dest, etag, prior)
        root = self.paths.root
        with dirfd.parent_of(root, key, create=True, new_name=self.paths.check_new_name) as (folder, name):
            found = dirfd.lstat_in(folder, name)
            if found is not None and stat_mode.S_ISDIR(found.st_mode):
                raise PathInvalid(f"{vp.rel!r} is a folder", details={"path": vp.rel})
            synced = chunks.folder_sync()  # in a chunk of writes: its folder fsynced once the chunk has ended
            return write_in(folder.fd, name, data, exclusive=exclusive, rel=key, check=check, vault=root, synced=synced)

    async def modify(
        self, vp: VaultPath, change: Callable[[str], str], *, expected_etag: str | None = None
    ) -> WriteResult:
        """Read-modify-write under the path lock; `change` may raise to abort with nothing written.

        The new text replaces the note only if it still holds the bytes read (`service.vault.reread`):
        a save, rename or delete by another program while the new bytes are written is never undone.
        Then, with `expected_etag`, the answer is `conflict`; without, `change` is applied again to
        the note as it is now (a note gone is `note_not_found`), up to `reread.TRIES` times."""
        key, dest = self._real(vp)
        async with self.lock(key), self._writes:
            refuse_read_only(dest, vp.rel)
            check = notesize.bound(vp.rel, self.max_note_bytes)  # a note too long to edit: refused, nothing read
            for _ in range(reread.TRIES):
                data, read = await offloop.sized(offloop.size_of(vp), self._read_raw, vp, key, expected_etag, check)
                note, new = await offloop.sized(len(data), changed_note, vp, data, read, expected_etag, change)
                try:
                    st = await asyncio.to_thread(
                        reread.replace_if_unchanged, self.paths.root, key, new, read, note.etag
                    )
                except Conflict as exc:
                    if notelocks.busy(exc):  # another process holds the note past the bounded wait
                        raise
                    if expected_etag is not None:
                        raise reread.changed(vp.rel, exc.details.get("current_etag"), expected_etag) from None
                    continue  # another program saved it meanwhile: apply the change to that
                break
            else:
                raise Conflict(f"{vp.rel!r} kept changing while it was written", details={"path": vp.rel})
            etag = await offloop.sized(len(new), etag_of, new)  # a long note's hash: off the loop
            result = WriteResult(rel=vp.rel, etag=etag, created=False, stat=_file_stat(st))
        await self.bus.publish(written("modified", vp.rel, key))
        return result

    async def delete(
        self, vp: VaultPath, *, permanent: bool, expected_etag: str | None = None, own: bool = False
    ) -> str | None:
        """Delete a file; returns its trash location (rel) unless permanent. `own`: a note the journaled call
        made itself, taken back (a permanent delete): over `max_note_bytes`, unread (`journal.withdraw`)."""
        async with self.lock(vp.rel), self._writes:
            if not vp.abs.is_file():
                if expected_etag is not None and not vp.abs.exists():
                    raise stale_etag(vp.rel, expected_etag, None)
                raise NoteNotFound(f"no note at {vp.rel!r}", details={"path": vp.rel})
            self.check_etag(vp, expected_etag)
            refuse_read_only(vp.abs, vp.rel, entry=True)
            trash = None if permanent else self._trash_dest(vp)
            try:
                trash_rel = await asyncio.to_thread(self._delete_sync, vp, trash, expected_etag, own)
            except FileNotFoundError:  # another program deleted it after the look above: nothing was done
                raise NoteNotFound(f"no note at {vp.rel!r}", details={"path": vp.rel}) from None
        await self.bus.publish([FileChange("deleted", vp.rel)])
        return trash_rel

    def _trash_dest(self, vp: VaultPath) -> Path:
        root = self.paths.root
        return root / trash_copy(f"{self.trash_folder}/{vp.rel}", lambda rel: (root / rel).exists())

    def _delete_sync(self, vp: VaultPath, trash: Path | None, etag: str | None = None, own: bool = False) -> str | None:
        """Journal, then unlink `vp` (`trash` None) or move it to `trash` if still `etag`, under the note's lock
        (`notelocks`; fsyncs after); refused there or gone: its records (trash folders too) are withdrawn.
        A note over `max_note_bytes` moved to the trash is journaled as a move, unread (`record_long_move`)."""
        root, src, recording = self.paths.root, self.paths.parent_real(vp), journal.recording()
        to = None if trash is None else VaultPath(rel=trash.relative_to(root).as_posix(), abs=trash)
        folders = self.missing_folders(to) if to and recording else []
        made = [f.relative_to(root).as_posix() for f in folders]
        long = journal.record_long_move(root, src, to.rel, self.max_note_bytes, folders) if to and recording else None
        own = own and not to and recording and journal.over(root, src, self.max_note_bytes) is not None
        if recording and not long and not own:
            prior = self._prior(vp, src)
            journal.record_file(root, src, None, prior)
            if to is not None:
                self._journal(to, to.rel, to.abs, etag_of(prior or b""))
        held = notelocks.held(root, src, check=None if etag is None else partial(self.check_etag, vp, etag))
        under = journal.withdrawn_if_refused([src, *made, *([to.rel] if to and not long else [])], held)
        dirfd.unlink(root, src, under=under) if to is None else dirfd.rename(root, src, to.rel, under=under)
        if to is not None and long is not None:
            journal.record_stamp(root, to.rel, long)  # the ctime the rename gave it (`journal.same_note`)
        if own:
            journal.withdraw(src)  # gone: its create is withdrawn, its bytes never recorded nor read
        return None if to is None else to.rel

    def _prior(self, vp: VaultPath, real: str) -> bytes | None:
        """The bytes at `vp` before a delete or move (the link's target's when `vp` is a link)."""
        return journal.read_prior(self.paths.root, self._real(vp)[0] if vp.abs.is_symlink() else real)

    def _read_raw(
        self, vp: VaultPath, key: str, expected_etag: str | None = None, check: dirfd.Check | None = None
    ) -> tuple[bytes, os.stat_result]:
        """The real in-vault file `key`'s bytes and `fstat` (a missing note with `expected_etag`: `stale_etag`)."""
        return self._found(vp, partial(dirfd.read_file, self.paths.root, key, check), expected_etag)

    def read_start(self, vp: VaultPath, chars: int) -> str:
        """The note's first `chars` characters as `read` decodes them; the rest is never held."""
        return self._found(vp, partial(dirfd.read_start, self.paths.root, self._real(vp)[0], chars))

    def scan(self, vp: VaultPath, scan: Callable[[BinaryIO], R], *, bounded: bool = False) -> R:
        """`scan` of the note's file opened as `read` opens it, a chunk at a time (`bounded`: as `read` bounds it)."""
        check = notesize.bound(vp.rel, self.max_note_bytes) if bounded else None
        return self._found(vp, partial(dirfd.scan_file, self.paths.root, self._real(vp)[0], scan, check))

    @staticmethod
    def _found(vp: VaultPath, read: Callable[[], R], expected_etag: str | None = None) -> R:
        """`read()` of the note at `vp`, its absence as `note_not_found` (`stale_etag` with an etag)."""
        try:
            return read()
        except (FileNotFoundError, NotADirectoryError):
            pass
        except PathInvalid as exc:
            if exc.details.get("reason") != "parent is a file":
                raise
        except IsADirectoryError:
            raise PathInvalid(f"{vp.rel!r} is a folder", details={"path": vp.rel}) from None
        if expected_etag is not None:
            raise stale_etag(vp.rel, expected_etag, None)
        raise NoteNotFound(f"no note at {vp.rel!r}", details={"path": vp.rel})

    async def copy(
        self,
        src: VaultPath,
        dst: VaultPath,
        *,
        overwrite: bool = False,
        expected_etag: str | None = None,
        data: bytes | None = None,
    ) -> WriteResult:
        """Copy a note's bytes (`data`: the copy's bytes instead, the note's with its links rewritten);
        `expected_etag` is the destination's (checked under its lock, off the loop if long)."""
        data = data if data is not None else await offloop.sized(offloop.size_of(src), self.read_bytes, src)
        key, dest = self._real(dst)
        async with self.lock(key), self.creating(dst.rel), self._writes:
            existed = await offloop.sized(offloop.size_of(dst), self.check_etag, dst, expected_etag, gone_is_stale=True)
            if existed and not overwrite:
                raise AlreadyExists(f"a note already exists at {dst.rel!r}", details={"path": dst.rel})
            refuse_read_only(dest, dst.rel) if existed else await asyncio.to_thread(self.check_new, dst, file=True)
            check = None if expected_etag is None else partial(self.check_etag, dst, expected_etag)
            etag = await offloop.sized(len(data), etag_of, data)
            st = await asyncio.to_thread(self._write_sync, dst, key, dest, data, etag, not overwrite, check)
            result = WriteResult(rel=dst.rel, etag=etag, created=not existed, stat=_file_stat(st))
        await self.bus.publish(written("created" if result.created else "modified", dst.rel, key))
        return result

    def _move_sync(self, src: VaultPath, dst: VaultPath, replace: bool) -> None:
        self.check_new(dst, file=not dst.abs.exists() and renamed(src.rel, dst.rel), itself=src.rel)
        root, src_real, dst_real = self.paths.root, self.paths.parent_real(src), self.paths.parent_real(dst)
        whole = src.abs.is_dir() or dirfd.one_entry(src.abs, dst.abs)  # or one file under both names: undone as one
        long = None  # a note over max_note_bytes: its move is recorded with its stamp, not its bytes (`stamp_of`)
        replacing = replace and os.path.lexists(root / dst_real)  # the file it replaces: recorded with its bytes
        if journal.recording():
            journal.record_folders(root, self.missing_folders(dst))
            if whole:
                journal.record_move(src_real, dst_real)
            elif long := journal.record_long_move(root, src_real, dst_real, self.max_note_bytes, replacing=replacing):
                whole = not replacing  # then the file it replaces and the move are withdrawn if refused
            else:
                moved = self._prior(src, src_real) or b""
                journal.record_file(root, dst_real, etag_of(moved))
                journal.record_file(root, src_real, None, moved)
        with journal.withdrawn_if_refused([src_real] if whole else [dst_real, src_real]) as done:
            dirfd.rename(root, src_real, dst_real, new_name=self.paths.check_new_name, replace=replace, renamed=done)
        if long is not None:
            journal.record_stamp(root, dst_real, long)

    def missing_folders(self, vp: VaultPath) -> list[Path]:
        """Folders a write to `vp` would create, deepest first (for undoing that write)."""
        missing: list[Path] = []
        folder = vp.abs.parent
        # one stat first: the folder is there for nearly every write, and `parents` builds a sequence
        while folder != self.paths.root and not folder.exists() and self.paths.root in folder.parents:
            missing.append(folder)
            folder = folder.parent
        return missing

    def remove_empty_folders(self, folders: list[Path]) -> None:
        """Remove folders that are (still) empty, deepest first; nothing else (outside the vault: nothing)."""
        for folder in sorted(set(folders), key=lambda f: len(f.parts), reverse=True):
            if self.paths.root in folder.parents:
                dirfd.rmdir(self.paths.root, folder.relative_to(self.paths.root).as_posix())

    async def make_folder(self, vp: VaultPath) -> bool:
        """Create a folder (and parents); returns False when it already existed."""
        if vp.abs.is_dir():
            return False
        if vp.abs.exists():
            raise AlreadyExists(f"a file already exists at {vp.rel!r}", details={"path": vp.rel})
        async with self.creating(vp.rel):
            try:
                await asyncio.to_thread(self._mkdir_sync, vp)
            except (FileExistsError, NotADirectoryError):
                raise PathInvalid(f"a parent of {vp.rel!r} is a file", details={"path": vp.rel}) from None
        return True

    def _mkdir_sync(self, vp: VaultPath) -> None:
        self.check_new(vp, file=True)
        if journal.recording():
            journal.record_folders(self.paths.root, [vp.abs, *self.missing_folders(vp)])
        dirfd.mkdirs(self.paths.root, self.paths.parent_real(vp), new_name=self.paths.check_new_name)

    async def move(self, src: VaultPath, dst: VaultPath, *, overwrite: bool = False) -> None:
        """Rename a file or folder inside the vault (no link rewriting: that is the graph's job)."""
        first, second = sorted((src.rel, dst.rel))
        async with self.lock(first), self.lock(second), self.creating(dst.rel), self._writes:
            if not src.abs.exists():
                raise NoteNotFound(f"nothing at {src.rel!r}", details={"path": src.rel})
            if dst.abs.exists() and not overwrite and not dirfd.one_entry(src.abs, dst.abs):  # a case-blind disk
                raise AlreadyExists(f"something already exists at {dst.rel!r}", details={"path": dst.rel})
            for vp in (src, dst) if overwrite else (src,):  # a read-only note is not moved nor replaced
                refuse_read_only(vp.abs, vp.rel, entry=True)
            try:  # without `overwrite`, something another program put at `dst` meanwhile is kept
                await asyncio.to_thread(self._move_sync, src, dst, overwrite)
            except FileExistsError:
                raise AlreadyExists(f"something already exists at {dst.rel!r}", details={"path": dst.rel}) from None
        await self.bus.publish([FileChange("moved", dst.rel, old_path=src.rel)])
