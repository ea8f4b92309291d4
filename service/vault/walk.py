"""Walking a vault folder as note tools see it: visible entries, symlinks followed only inside the
vault and never round a cycle, filtered by the caller's read decision (`VaultFiles.walk`)."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path

from service.vault.decoding import is_utf8_name
from service.vault.paths import VaultPath, VaultPaths, realpath_now


def walk(
    paths: VaultPaths,
    folder: VaultPath,
    *,
    recursive: bool = True,
    readable: Callable[[str], bool] | None = None,
    max_depth: int | None = None,
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Yield (rel, entry) for visible entries below `folder`, by folder then name; `rel` is NFC
    (the entry's name as the disk spells it may be NFD, `service.vault.spelling`).

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
    root = paths.root
    depth_limit = max_depth if max_depth is not None else (None if recursive else 1)
    start = Path(realpath_now(folder.abs, folder.rel))
    linked = folder.real_rel is not None and folder.real_rel != folder.rel
    stack: list[tuple[VaultPath, Path, bool, frozenset[Path], int]] = [(folder, start, linked, frozenset((start,)), 1)]
    while stack:
        current, current_real, current_linked, chain, depth = stack.pop()
        try:
            entries = sorted(os.scandir(current.abs), key=lambda e: e.name)
        except OSError:  # vanished, not a folder, unreadable, name too long
            continue
        for entry in entries:
            name = entry.name if entry.name.isascii() else unicodedata.normalize("NFC", entry.name)
            rel = f"{current.rel}/{name}" if current.rel else name
            if entry.name.startswith(".") or paths.is_hidden(rel):
                continue
            if not is_utf8_name(entry.name) or not _listable(entry):
                continue  # a name JSON cannot carry; a FIFO, socket or device (never opened); a dangling link
            real: Path | None = None  # a plain file's real location is never needed
            if entry.is_symlink():
                try:
                    real = Path(os.path.realpath(entry.path))
                except OSError:
                    continue  # a link swapped while it was read: not listed this time
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
                if real_rel and (real_rel.startswith(".") or paths.is_hidden(real_rel)):
                    continue
            if readable is None or (readable(rel) and (real_rel is None or readable(real_rel))):
                yield rel, entry
            if (depth_limit is None or depth < depth_limit) and entry.is_dir():
                if real is None:
                    real = current_real / entry.name
                if real not in chain:
                    sub = VaultPath(rel=rel, abs=Path(entry.path))
                    stack.append((sub, real, is_linked, chain | {real}, depth + 1))


def _listable(entry: os.DirEntry[str]) -> bool:
    """A folder or a regular file (through a symlink too). A symlink that cannot be followed
    (one that points at itself or round a loop: ELOOP; a folder on the way made unreadable)
    is not listed: `DirEntry.is_dir` raises there rather than answer False, and one such link
    must not fail the listing of the whole folder."""
    try:
        return entry.is_dir() or entry.is_file()
    except OSError:
        return False
