"""Folder listings that do not walk what has not changed: per-folder snapshots checked by mtime.

`list_notes` shows what is on disk now. Walking a folder of 10,000 files costs ~10 ms of
interpreter time, the same again on every call, even when nothing changed. A folder's own mtime
changes whenever an entry is added, removed or renamed in it (POSIX; edits inside a file do not
touch it, and a listing sorted by path does not need them). So a folder's sorted file names are
kept with the mtime they were read under, and a later listing re-reads only the folders whose
mtime moved: one `stat` per folder instead of one step per file.

Racy snapshots. A timestamp has a granularity (a kernel tick, ~1–10 ms on Linux; 1–2 s on FAT
and some network file systems), so a change right after a read may leave the mtime as it was. A
snapshot is therefore reused only when it was taken more than `margin` after the mtime it
recorded (git's "racily clean" rule): any later change then carries a later mtime. A whole-second
mtime is taken as a coarse file system, with a margin of three seconds.

Only plain folders are kept: a folder with a symlink in it, or reached through one, is left to
`VaultFiles.walk` (which follows links inside the vault and never round a cycle), and so is the
caller the path rules restrict (`walk_filter`). Listed paths are NFC, as every vault path (a
folder is still read by the name the disk gives it). The cache holds names, not stat results (sizes and
mtimes of the page are read fresh); a folder gone from its parent's new snapshot is forgotten with
everything below it, and the whole cache is dropped beyond `MAX_NAMES` names.
"""

from __future__ import annotations

import heapq
import itertools
import os
import time
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from service.vault.decoding import is_utf8_name
from service.vault.paths import VaultPath, VaultPaths
from service.vault.spelling import on_disk

FINE_MARGIN_NS = 50_000_000  # well over a kernel timestamp tick
COARSE_MARGIN_NS = 3_000_000_000  # FAT keeps 2 s, some network file systems 1 s
MAX_NAMES = 200_000


@dataclass(frozen=True, slots=True)
class _Snapshot:
    mtime_ns: int
    taken_ns: int  # wall clock before the folder was read
    files: tuple[str, ...]  # visible file names, sorted by their lower-case form
    markdown: int  # how many of them end in .md
    folders: tuple[str, ...]  # visible sub-folder names

    def reusable(self, mtime_ns: int) -> bool:
        margin = COARSE_MARGIN_NS if self.mtime_ns % 1_000_000_000 == 0 else FINE_MARGIN_NS
        return mtime_ns == self.mtime_ns and self.taken_ns - self.mtime_ns > margin


@dataclass(frozen=True, slots=True)
class Listing:
    """The files below a folder, ready to page: `total` of them, `page` cuts one page out."""

    parts: tuple[tuple[str, tuple[str, ...]], ...]  # (folder rel, its sorted file names)
    total: int
    markdown_only: bool

    def page(self, after: tuple[str, str] | None, limit: int, *, descending: bool = False) -> list[str]:
        """The `limit` vault paths after the sort key `after` (`path_key` of the last path a page
        listed; None: from the start), sorted by `path_key`: a keyset, so files created or deleted
        before it shift no later page."""
        runs = [self._run(rel, names, descending) for rel, names in self.parts]
        merged: Iterable[str] = heapq.merge(*runs, key=path_key, reverse=descending)
        if after is not None:
            mark = after
            merged = itertools.dropwhile(
                (lambda p: path_key(p) >= mark) if descending else (lambda p: path_key(p) <= mark), merged
            )
        return list(itertools.islice(merged, limit))

    def _run(self, rel: str, names: tuple[str, ...], descending: bool) -> Iterator[str]:
        prefix = f"{rel}/" if rel else ""
        ordered: Iterable[str] = reversed(names) if descending else names
        for name in ordered:
            if not self.markdown_only or name.lower().endswith(".md"):
                yield prefix + name


def path_key(path: str) -> tuple[str, str]:
    """The listing order of a path: by its lower-case form, then (names equal but for case) by the
    name itself, a total order a keyset cursor can resume from."""
    return path.lower(), path


def _nfc(name: str) -> str:
    """A name as vault paths have it: NFC (the disk may spell it NFD: `service.vault.spelling`)."""
    return name if name.isascii() else unicodedata.normalize("NFC", name)


class FolderListings:
    """Per-folder snapshots of one vault's file names (module docstring)."""

    def __init__(self, paths: VaultPaths) -> None:
        self.paths = paths
        self._root = str(paths.root)
        self._snaps: dict[str, _Snapshot] = {}
        self._names = 0
        self.reads = 0  # folders read from disk (the rest came from snapshots)

    def listing(self, folder: VaultPath, *, recursive: bool, attachments: bool) -> Listing | None:
        """The files below `folder` (its own only unless `recursive`), or None when a symlink is
        on the way (the caller walks instead)."""
        if folder.real_rel is not None and folder.real_rel != folder.rel:
            return None
        parts: list[tuple[str, tuple[str, ...]]] = []
        total = 0
        todo = [on_disk(self._root, folder.rel)]  # snapshots are keyed by the names the disk gives
        while todo:
            rel = todo.pop()
            snap = self._snapshot(rel)
            if snap is None:
                return None
            parts.append((_nfc(rel), snap.files))
            total += len(snap.files) if attachments else snap.markdown
            if recursive:
                todo.extend(f"{rel}/{name}" if rel else name for name in snap.folders)
        return Listing(tuple(parts), total, not attachments)

    def _snapshot(self, rel: str) -> _Snapshot | None:
        path = os.path.join(self.paths.root, rel) if rel else str(self.paths.root)
        snap = self._snaps.get(rel)
        if snap is not None:
            try:
                if snap.reusable(os.stat(path).st_mtime_ns):
                    return snap
            except OSError:
                pass  # gone: read again (and fail there the same way a walk would)
        fresh = self._read(rel, path)
        old = self._snaps.pop(rel, None)
        if old is not None:
            self._names -= len(old.files)
            gone = set(old.folders).difference(fresh.folders if fresh is not None else ())
            self._forget([f"{rel}/{name}" if rel else name for name in gone])
        if fresh is not None and fresh.mtime_ns >= 0:
            if self._names + len(fresh.files) > MAX_NAMES:
                self._snaps.clear()
                self._names = 0
            self._snaps[rel] = fresh
            self._names += len(fresh.files)
        return fresh

    def _forget(self, folders: list[str]) -> None:
        """Drop the snapshots of folders gone from their parent, and of everything below them."""
        if not folders:
            return
        prefixes = tuple(f"{rel}/" for rel in folders)
        for key in [k for k in self._snaps if k in folders or k.startswith(prefixes)]:
            self._names -= len(self._snaps.pop(key).files)

    def _read(self, rel: str, path: str) -> _Snapshot | None:
        """One folder read from disk, or None when it holds a symlink (left to the walk). A folder
        that cannot be read lists as empty, as the walk has it."""
        self.reads += 1
        taken = time.time_ns()
        files: list[str] = []
        folders: list[str] = []
        try:
            mtime = os.stat(path).st_mtime_ns
            with os.scandir(path) as entries:
                for entry in entries:
                    name = entry.name
                    if name.startswith(".") or (not rel and self.paths.is_hidden(name)):
                        continue
                    if entry.is_symlink():
                        return None
                    if not is_utf8_name(name):
                        continue  # a name JSON cannot carry (as the walk has it)
                    if entry.is_dir():
                        folders.append(name)
                    elif entry.is_file():  # a FIFO, socket or device is never listed (nor opened)
                        files.append(_nfc(name))
        except OSError:  # vanished, not a folder, unreadable: nothing to list, nothing to keep
            return _Snapshot(-1, taken, (), 0, ())
        files.sort()  # names equal but for case: in name order, as the walk has them
        files.sort(key=str.lower)
        folders.sort()
        markdown = sum(1 for name in files if name.lower().endswith(".md"))
        return _Snapshot(mtime, taken, tuple(files), markdown, tuple(folders))
