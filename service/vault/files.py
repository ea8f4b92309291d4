"""Reading and writing vault files: atomic, etag-checked, serialized per path.

Guarantees:
- a write never leaves a half-written file: the new bytes go to a temp file in the same folder,
  are fsynced, then renamed over the target (and the folder fsynced);
- `expected_etag` (the content hash a caller read) is compared under the per-path lock, so a
  concurrent edit turns into `conflict` instead of a lost update; read-modify-write helpers
  (`modify`) hold that lock across the read and the write;
- at most `max_concurrent` writes run at once per vault;
- deletes move to the trash folder unless `permanent`;
- every change is published on the vault's `ChangeBus` before the call returns.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import stat as stat_mode
import unicodedata
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from service.errors import AlreadyExists, Conflict, NoteNotFound, PathInvalid
from service.vault import journal
from service.vault.decoding import UTF8, decode_note, is_utf8_name
from service.vault.events import ChangeBus, FileChange
from service.vault.listings import FolderListings
from service.vault.paths import VaultPath, VaultPaths
from service.vault.temps import _fsync_dir, _write_atomic


def etag_of(data: bytes) -> str:
    """The content hash callers pass back as `expected_etag`."""
    return hashlib.sha256(data).hexdigest()[:32]


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
    # is not the bytes exactly, and a write of it saves UTF-8.
    encoding: str = UTF8


@dataclass(frozen=True, slots=True)
class WriteResult:
    rel: str
    etag: str
    created: bool
    stat: FileStat


def _stat(p: Path) -> FileStat:
    return _file_stat(p.stat())


def _file_stat(st: os.stat_result) -> FileStat:
    return FileStat(size=st.st_size, mtime=st.st_mtime, ctime=getattr(st, "st_birthtime", st.st_ctime))


def decode(data: bytes) -> str:
    """A note's text: UTF-8, or the encoding its bytes are in (never a lone surrogate, which JSON
    and SQLite refuse; `service.vault.decoding`)."""
    return decode_note(data).text


def note_file(vp: VaultPath, data: bytes, st: os.stat_result) -> NoteFile:
    text, encoding = decode_note(data)
    return NoteFile(path=vp, content=text, etag=etag_of(data), stat=_file_stat(st), encoding=encoding)


# Reading never blocks on a FIFO named like a note (a plain open waits for a writer forever).
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def _replace(dest: Path, key: str, data: bytes, prior: bytes | None) -> None:
    """Journal (`prior`: the bytes being replaced), then write `data` over `dest` (worker thread)."""
    journal.record_file(dest, key, etag_of(data), prior)
    _write_atomic(dest, data, exclusive=False)


class VaultFiles:
    """File operations for one vault. All paths come in as caller strings or `VaultPath`s."""

    def __init__(self, paths: VaultPaths, bus: ChangeBus, *, max_concurrent: int, trash_folder: str) -> None:
        self.paths = paths
        self.bus = bus
        self.trash_folder = trash_folder
        self._writes = asyncio.Semaphore(max_concurrent)
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self.listings = FolderListings(paths)

    def lock(self, rel: str) -> asyncio.Lock:
        lock = self._locks.get(rel)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[rel] = lock
        return lock

    def writing(self, rel: str) -> asyncio.Lock | None:
        """The lock of a write to `rel` in progress now (None: no vaultgate write holds it)."""
        lock = self._locks.get(rel)
        return lock if lock is not None and lock.locked() else None

    # -- reads -------------------------------------------------------------------------------

    def read(self, vp: VaultPath) -> NoteFile:
        try:
            fd = os.open(vp.abs, _READ_FLAGS)
        except (FileNotFoundError, NotADirectoryError):
            raise NoteNotFound(f"no note at {vp.rel!r}", details={"path": vp.rel}) from None
        with open(fd, "rb", buffering=0) as f:  # unbuffered: no tty probe, one read to EOF
            st = os.fstat(fd)  # the size and times of the bytes read, not of a later version
            if stat_mode.S_ISDIR(st.st_mode):
                raise PathInvalid(f"{vp.rel!r} is a folder", details={"path": vp.rel})
            if not stat_mode.S_ISREG(st.st_mode):
                raise PathInvalid(
                    f"{vp.rel!r} is not a regular file", details={"path": vp.rel, "reason": "special file"}
                )
            data = f.readall()
        return note_file(vp, data, st)

    def read_bytes(self, vp: VaultPath) -> bytes:
        try:
            return vp.abs.read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise NoteNotFound(f"no file at {vp.rel!r}", details={"path": vp.rel}) from None

    def stat(self, vp: VaultPath) -> FileStat:
        try:
            return _stat(vp.abs)
        except (FileNotFoundError, NotADirectoryError):
            raise NoteNotFound(f"no note at {vp.rel!r}", details={"path": vp.rel}) from None

    def current_etag(self, vp: VaultPath) -> str | None:
        try:
            return etag_of(vp.abs.read_bytes())
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None  # no note there (a folder is reported by the write that tries it)

    def walk(
        self,
        folder: VaultPath,
        *,
        recursive: bool = True,
        readable: Callable[[str], bool] | None = None,
        max_depth: int | None = None,
    ) -> Iterator[tuple[str, os.DirEntry[str]]]:
        """Yield (rel, entry) for visible entries below `folder`, by folder then name.

        Names that are not valid UTF-8 and special files (FIFOs, sockets, devices) are skipped.
        Symlinks are followed only inside the vault (a dangling one is skipped), and never round a
        cycle (a folder whose real location is already on the way down is listed, not entered
        again). With `readable` (the
        caller's read decision on a vault path), an entry is yielded only when it admits the
        entry's own path and, when a symlink is on the way (the entry itself or a folder above
        it), the in-vault path it really is: `Inbox/Shortcut.md -> Private/Diary.md` is listed
        only to a caller who may read `Private/Diary.md`. Folders that are not yielded are still
        entered (a readable note may lie below). `max_depth` (1 = the folder's own entries,
        which is what `recursive=False` means) bounds the descent.
        """
        root = self.paths.root
        depth_limit = max_depth if max_depth is not None else (None if recursive else 1)
        start = Path(os.path.realpath(folder.abs))
        linked = folder.real_rel is not None and folder.real_rel != folder.rel
        stack: list[tuple[VaultPath, Path, bool, frozenset[Path], int]] = [
            (folder, start, linked, frozenset((start,)), 1)
        ]
        while stack:
            current, current_real, current_linked, chain, depth = stack.pop()
            try:
                entries = sorted(os.scandir(current.abs), key=lambda e: e.name)
            except OSError:  # vanished, not a folder, unreadable, name too long
                continue
            for entry in entries:
                rel = f"{current.rel}/{entry.name}" if current.rel else entry.name
                if entry.name.startswith(".") or self.paths.is_hidden(rel):
                    continue
                if not is_utf8_name(entry.name) or not (entry.is_dir() or entry.is_file()):
                    continue  # a name JSON cannot carry; a FIFO, socket or device (never opened); a dangling link
                real: Path | None = None  # a plain file's real location is never needed
                if entry.is_symlink():
                    real = Path(os.path.realpath(entry.path))
                    if (real != root and root not in real.parents) or not real.exists():
                        continue  # leaves the vault, or dangles (nothing there to list)
                    is_linked = True
                else:
                    is_linked = current_linked
                    if is_linked:
                        real = current_real / entry.name
                real_rel: str | None = None
                if is_linked and real is not None:
                    real_rel = unicodedata.normalize("NFC", real.relative_to(root).as_posix()) if real != root else ""
                    if real_rel and (real_rel.startswith(".") or self.paths.is_hidden(real_rel)):
                        continue
                if readable is None or (readable(rel) and (real_rel is None or readable(real_rel))):
                    yield rel, entry
                if (depth_limit is None or depth < depth_limit) and entry.is_dir():
                    if real is None:
                        real = current_real / entry.name
                    if real not in chain:
                        sub = VaultPath(rel=rel, abs=Path(entry.path))
                        stack.append((sub, real, is_linked, chain | {real}, depth + 1))

    # -- writes ------------------------------------------------------------------------------

    def _real(self, vp: VaultPath) -> tuple[str, Path]:
        """Where a write to `vp` lands: through an in-vault symlink, its target (re-checked now).

        Renaming a temp file over a symlink would replace the link with a regular file and leave
        the note it pointed at unchanged; writing to the resolved target keeps the link intact.
        """
        if vp.real_rel is None and not vp.abs.is_symlink():
            return vp.rel, vp.abs
        real = Path(os.path.realpath(vp.abs))
        rel = self.paths.from_abs(real)
        if rel is None or not rel:
            raise PathInvalid(
                f"{vp.rel!r} resolves outside the vault or into a hidden folder",
                details={"path": vp.rel, "reason": "symlink leaves the vault"},
            )
        return rel, real

    def check_etag(self, vp: VaultPath, expected_etag: str | None) -> bool:
        """Compare under the lock; returns whether the file existed.

        An `expected_etag` for a note that does not exist (any more) is a `conflict` too: what the
        caller read is gone, so nothing is written.
        """
        current = self.current_etag(vp)
        if expected_etag is not None and current != expected_etag:
            raise Conflict(
                f"{vp.rel!r} changed since it was read" if current else f"{vp.rel!r} does not exist (any more)",
                details={"path": vp.rel, "expected_etag": expected_etag, "current_etag": current},
            )
        return current is not None

    async def write(
        self,
        vp: VaultPath,
        content: str,
        *,
        expected_etag: str | None = None,
        create_only: bool = False,
        must_exist: bool = False,
        publish: bool = True,
    ) -> WriteResult:
        """`publish=False` for Obsidian's own settings files (`.obsidian/…`), which are not vault
        content: the index and resource subscribers never hear of them."""
        data = encode(content)
        key, dest = self._real(vp)
        async with self.lock(key), self._writes:
            existed = self.check_etag(vp, expected_etag)
            if create_only and existed:
                raise AlreadyExists(f"a note already exists at {vp.rel!r}", details={"path": vp.rel})
            if must_exist and not existed:
                raise NoteNotFound(f"no note at {vp.rel!r}", details={"path": vp.rel})
            await asyncio.to_thread(self._write_sync, vp, key, dest, data, create_only)
            result = WriteResult(rel=vp.rel, etag=etag_of(data), created=not existed, stat=_stat(dest))
        if publish:
            await self.bus.publish(self._changes("created" if result.created else "modified", vp.rel, key))
        return result

    def _journal(self, vp: VaultPath, key: str, dest: Path, new_etag: str | None) -> None:
        """Record the folders and the file a change is about to create or replace (`journal`;
        in the worker thread that makes the change)."""
        if journal.recording():
            journal.record_folders(self.paths.root, self.missing_folders(vp))
            journal.record_file(dest, key, new_etag)

    @staticmethod
    def _changes(kind: Literal["created", "modified"], rel: str, real_rel: str) -> list[FileChange]:
        """The change as callers name it, plus the symlink target's own path when they differ."""
        changes = [FileChange(kind, rel)]
        if real_rel != rel:
            changes.append(FileChange(kind, real_rel))
        return changes

    def _write_sync(self, vp: VaultPath, key: str, dest: Path, data: bytes, exclusive: bool) -> None:
        if dest.is_dir():
            raise PathInvalid(f"{vp.rel!r} is a folder", details={"path": vp.rel})
        self._journal(vp, key, dest, etag_of(data))
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise PathInvalid(f"a parent of {vp.rel!r} is a file", details={"path": vp.rel}) from None
        _write_atomic(dest, data, exclusive=exclusive)

    async def modify(
        self, vp: VaultPath, change: Callable[[str], str], *, expected_etag: str | None = None
    ) -> WriteResult:
        """Read-modify-write under the path lock; `change` may raise to abort with nothing written."""
        key, dest = self._real(vp)
        async with self.lock(key), self._writes:
            try:
                note = self.read(vp)
            except NoteNotFound:
                if expected_etag is not None:
                    self.check_etag(vp, expected_etag)  # raises conflict: what the caller read is gone
                raise
            if expected_etag is not None and note.etag != expected_etag:
                raise Conflict(
                    f"{vp.rel!r} changed since it was read",
                    details={"path": vp.rel, "expected_etag": expected_etag, "current_etag": note.etag},
                )
            data = encode(change(note.content))
            # The prior bytes are the ones just read (a UTF-8 note's text encodes back exactly; one
            # read with another encoding is read again, as it is saved as UTF-8 now).
            exact = note.encoding == UTF8
            prior = (encode(note.content) if exact else dest.read_bytes()) if journal.recording() else None
            await asyncio.to_thread(_replace, dest, key, data, prior)
            result = WriteResult(rel=vp.rel, etag=etag_of(data), created=False, stat=_stat(dest))
        await self.bus.publish(self._changes("modified", vp.rel, key))
        return result

    async def delete(self, vp: VaultPath, *, permanent: bool, expected_etag: str | None = None) -> str | None:
        """Delete a file; returns its trash location (rel) unless permanent."""
        async with self.lock(vp.rel), self._writes:
            if not vp.abs.is_file():
                if expected_etag is not None and not vp.abs.exists():
                    self.check_etag(vp, expected_etag)  # raises conflict: what the caller read is gone
                raise NoteNotFound(f"no note at {vp.rel!r}", details={"path": vp.rel})
            self.check_etag(vp, expected_etag)
            trash = None if permanent else self._trash_dest(vp)
            await asyncio.to_thread(self._delete_sync, vp, trash)
            trash_rel = trash.relative_to(self.paths.root).as_posix() if trash is not None else None
        await self.bus.publish([FileChange("deleted", vp.rel)])
        return trash_rel

    def _trash_dest(self, vp: VaultPath) -> Path:
        dest = self.paths.root / self.trash_folder / vp.rel
        stem, suffix, n = dest.stem, dest.suffix, 1
        while dest.exists():
            dest = dest.with_name(f"{stem} {n}{suffix}")
            n += 1
        return dest

    def _delete_sync(self, vp: VaultPath, trash: Path | None) -> None:
        """Journal, then unlink `vp` (`trash` None) or move it to `trash`; fsync its folder."""
        if journal.recording():
            prior = journal.read_prior(vp.abs)
            journal.record_file(vp.abs, vp.rel, None, prior)
            if trash is not None:
                trash_rel = trash.relative_to(self.paths.root).as_posix()
                self._journal(VaultPath(rel=trash_rel, abs=trash), trash_rel, trash, etag_of(prior or b""))
        if trash is None:
            vp.abs.unlink()
        else:
            trash.parent.mkdir(parents=True, exist_ok=True)
            os.replace(vp.abs, trash)
        _fsync_dir(vp.abs.parent)

    async def copy(
        self, src: VaultPath, dst: VaultPath, *, overwrite: bool = False, expected_etag: str | None = None
    ) -> WriteResult:
        """Copy a note's bytes; `expected_etag` is the destination's (checked under its lock)."""
        data = self.read_bytes(src)
        key, dest = self._real(dst)
        async with self.lock(key), self._writes:
            existed = self.check_etag(dst, expected_etag)
            if existed and not overwrite:
                raise AlreadyExists(f"a note already exists at {dst.rel!r}", details={"path": dst.rel})
            await asyncio.to_thread(self._write_sync, dst, key, dest, data, not overwrite)
            result = WriteResult(rel=dst.rel, etag=etag_of(data), created=not existed, stat=_stat(dest))
        await self.bus.publish(self._changes("created" if result.created else "modified", dst.rel, key))
        return result

    def _move_sync(self, src: VaultPath, dst: VaultPath) -> None:
        if journal.recording():
            journal.record_folders(self.paths.root, self.missing_folders(dst))
            if src.abs.is_dir():
                journal.record_move(src.rel, dst.rel)
            else:
                moved = src.abs.read_bytes()
                journal.record_file(dst.abs, dst.rel, etag_of(moved))
                journal.record_file(src.abs, src.rel, None, moved)
        dst.abs.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(src.abs, dst.abs)

    def missing_folders(self, vp: VaultPath) -> list[Path]:
        """Folders a write to `vp` would create, deepest first (for undoing that write)."""
        missing: list[Path] = []
        folder = vp.abs.parent
        while folder != self.paths.root and self.paths.root in folder.parents and not folder.exists():
            missing.append(folder)
            folder = folder.parent
        return missing

    def remove_empty_folders(self, folders: list[Path]) -> None:
        """Remove folders that are (still) empty, deepest first; anything else is left alone."""
        for folder in sorted(set(folders), key=lambda f: len(f.parts), reverse=True):
            if self.paths.root not in folder.parents:
                continue
            try:
                folder.rmdir()
            except OSError:
                continue

    async def make_folder(self, vp: VaultPath) -> bool:
        """Create a folder (and parents); returns False when it already existed."""
        if vp.abs.is_dir():
            return False
        if vp.abs.exists():
            raise AlreadyExists(f"a file already exists at {vp.rel!r}", details={"path": vp.rel})
        try:
            await asyncio.to_thread(self._mkdir_sync, vp)
        except (FileExistsError, NotADirectoryError):
            raise PathInvalid(f"a parent of {vp.rel!r} is a file", details={"path": vp.rel}) from None
        return True

    def _mkdir_sync(self, vp: VaultPath) -> None:
        if journal.recording():
            journal.record_folders(self.paths.root, [vp.abs, *self.missing_folders(vp)])
        vp.abs.mkdir(parents=True, exist_ok=True)

    async def move(self, src: VaultPath, dst: VaultPath, *, overwrite: bool = False) -> None:
        """Rename a file or folder inside the vault (no link rewriting: that is the graph's job)."""
        first, second = sorted((src.rel, dst.rel))
        async with self.lock(first), self.lock(second), self._writes:
            if not src.abs.exists():
                raise NoteNotFound(f"nothing at {src.rel!r}", details={"path": src.rel})
            if dst.abs.exists() and not overwrite:
                raise AlreadyExists(f"something already exists at {dst.rel!r}", details={"path": dst.rel})
            await asyncio.to_thread(self._move_sync, src, dst)
        await self.bus.publish([FileChange("moved", dst.rel, old_path=src.rel)])
