"""Reading the vault folder as the indexer sees it: the disk scan and the files of a change.

Guarantees: hidden folders, dot files, our own `.vgtmp` temp files and symlinks are never listed
(a link's text could come from outside the vault or from a note the ACL denies); paths are
vault-relative, `/`-separated and NFC, exactly what `VaultPaths.from_abs` returns. A name that
is not valid UTF-8 (with everything below it, for a folder) and a special file (FIFO, socket,
device: never opened, since opening a FIFO blocks) are left out and reported as a `FileIssue`
(`issues.py`). Everything here blocks on the file system: callers run it in a worker thread.
"""

from __future__ import annotations

import os
import stat
import sys
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

from service.graph.linkpath import PathSet
from service.indexer import rows
from service.indexer.canvas_facts import is_canvas
from service.indexer.issues import FileIssue, issue
from service.indexer.known import KnownFiles
from service.indexer.reading import read_note_checked
from service.vault import case_renames
from service.vault.decoding import UTF8, is_utf8_name
from service.vault.paths import VaultPaths
from service.vault.root_link import walkable
from service.vault.spelling import on_disk
from service.vault.temps import SUFFIX, sweep

PAUSE_EVERY = 256  # names between two calls of a scan's `pause`


def indexed(rel: str) -> bool:
    """Files the index reads: notes, and canvases (their words and links)."""
    return rel.lower().endswith(".md") or is_canvas(rel)


def scan(
    paths: VaultPaths,
    temps: list[str] | None = None,
    issues: list[FileIssue] | None = None,
    pause: Callable[[], None] | None = None,
    unread: list[OSError] | None = None,
) -> tuple[dict[str, tuple[float, int]], set[str]]:
    """(indexed files — notes and canvases — with their (mtime, size), every file) under the vault
    root; the temp files of atomic writes found on the way are added to `temps` when given (see
    `service.vault.temps`), the names left out (not UTF-8, special files) to `issues`, the
    folders that could not be listed to `unread` (their error). `pause` is called every
    `PAUSE_EVERY` names (`service.activity.GiveWay`: turns given to the calls)."""
    notes: dict[str, tuple[float, int]] = {}
    files: set[str] = set()
    root = paths.root
    walkable(root)  # a vault folder replaced by a link is never walked (`service.vault.root_link`)
    countdown = PAUSE_EVERY
    for dirpath, dirnames, filenames in os.walk(root, onerror=None if unread is None else unread.append):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        kept = []
        for d in dirnames:
            if d.startswith("."):
                continue
            if not is_utf8_name(d):
                if issues is not None:
                    issues.append(issue(f"{rel_dir}/{d}" if rel_dir else d, "name_not_utf8", "folder"))
                continue
            kept.append(d)
        dirnames[:] = kept
        for name in filenames:
            countdown -= 1
            if not countdown:
                countdown = PAUSE_EVERY
                if pause is not None:
                    pause()
            if name.endswith(SUFFIX) and temps is not None:
                temps.append(f"{rel_dir}/{name}" if rel_dir else name)
            if name.startswith(".") or name.endswith(SUFFIX):
                continue
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if not is_utf8_name(name):
                if issues is not None:
                    issues.append(issue(rel, "name_not_utf8", "file"))
                continue
            # What `paths.from_abs(root / rel)` returns, without two Path objects per file
            # (pathlib was 2/3 of a 10k-note scan, which runs beside the first requests).
            rel = "" if paths.is_hidden(rel) else unicodedata.normalize("NFC", rel)
            if not rel:
                continue
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue  # gone meanwhile
            if stat.S_ISLNK(st.st_mode):
                continue  # links are never indexed (see `reading.read_note_checked`)
            if not stat.S_ISREG(st.st_mode):
                if issues is not None:
                    issues.append(issue(rel, "special_file", special_kind(st.st_mode)))
                continue
            files.add(rel)
            if indexed(rel):
                notes[rel] = (st.st_mtime, st.st_size)
    return notes, files


def special_kind(mode: int) -> str:
    """What a file that is neither a regular file, a folder nor a link is, in a word."""
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special"


def scan_with_paths(
    paths: VaultPaths, issues: list[FileIssue] | None = None, pause: Callable[[], None] | None = None
) -> tuple[dict[str, tuple[float, int]], KnownFiles, PathSet]:
    """`scan`, plus the link-resolution index of the files (built here to stay off the event loop);
    temp files a crashed write left behind are removed on the way (`service.vault.temps.sweep`),
    after a case-only rename a crash cut in two was finished (`service.vault.case_renames`)."""
    case_renames.finish(paths.root)  # a case-only rename a crash cut in two: finished before the look
    temps: list[str] = []
    notes, found = scan(paths, temps, issues, pause)
    if temps:
        sweep(paths.root, temps)
    # Interned: the Dataview and Bases images intern the paths they read from the index, and
    # then hold these objects, not 10^5 copies of their own (~13 MB at 10^5 notes).
    ordered = sorted({sys.intern(f) for f in found})  # one sort for both
    return notes, KnownFiles(ordered), PathSet(ordered, ordered=True)


def _through_link(root: Path, folder: str, seen: dict[str, bool]) -> bool:
    """Whether a folder on the way to the vault folder `folder` is a symlink (answers kept in
    `seen`: a batch's files share their folders)."""
    if not folder:
        return False
    found = seen.get(folder)
    if found is None:
        parent, _, _name = folder.rpartition("/")
        try:
            found = _through_link(root, parent, seen) or stat.S_ISLNK(os.lstat(root / folder).st_mode)
        except (OSError, ValueError):
            found = False  # gone: the file is not there either
        seen[folder] = found
    return found


def read_present(root: Path, paths: Sequence[str]) -> tuple[set[str], dict[str, rows.NoteInput], list[FileIssue]]:
    """Which of `paths` are files now, the notes among them as read, and the files left out (a
    special file is not present: it is never opened; nor is a file below a symlinked folder, which
    the scan never enters: its text could come from outside the vault)."""
    present: set[str] = set()
    read: dict[str, rows.NoteInput] = {}
    issues: list[FileIssue] = []
    linked: dict[str, bool] = {}
    root_text = str(root)
    for rel in paths:
        spelled = on_disk(root_text, rel)  # an NFD name from macOS is this NFC path's file
        if _through_link(root, spelled.rpartition("/")[0], linked):
            continue  # as the scan has it: a folder reached through a link is never indexed
        try:
            mode = os.stat(root / spelled).st_mode  # through a link, as `Path.is_file` has it
        except (OSError, ValueError):
            continue
        if not stat.S_ISREG(mode):
            if not stat.S_ISDIR(mode):
                issues.append(issue(rel, "special_file", special_kind(mode)))
            continue
        present.add(rel)
        if indexed(rel):
            item = read_note_checked(root, rel)
            if isinstance(item, FileIssue):
                issues.append(item)
            elif item is not None:
                read[rel] = item
                if item.encoding != UTF8:
                    issues.append(issue(rel, "encoding", item.encoding))
    return present, read, issues
