"""Reading the vault folder as the indexer sees it: the disk scan and the files of a change.

Guarantees: hidden folders, dot files, our own `.vgtmp` temp files and symlinks are never listed
(a link's text could come from outside the vault or from a note the ACL denies); paths are
vault-relative, `/`-separated and NFC, exactly what `VaultPaths.from_abs` returns. Everything
here blocks on the file system: callers run it in a worker thread.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from service.graph.linkpath import PathSet
from service.indexer import rows
from service.indexer.canvas_facts import is_canvas
from service.vault.paths import VaultPaths
from service.vault.temps import SUFFIX, sweep


def indexed(rel: str) -> bool:
    """Files the index reads: notes, and canvases (their words and links)."""
    return rel.lower().endswith(".md") or is_canvas(rel)


def scan(paths: VaultPaths, temps: list[str] | None = None) -> tuple[dict[str, tuple[float, int]], set[str]]:
    """(indexed files — notes and canvases — with their (mtime, size), every file) under the vault
    root; the temp files of atomic writes found on the way are added to `temps` when given (see
    `service.vault.temps`)."""
    notes: dict[str, tuple[float, int]] = {}
    files: set[str] = set()
    root = paths.root
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(SUFFIX) and temps is not None:
                temps.append(f"{rel_dir}/{name}" if rel_dir else name)
            if name.startswith(".") or name.endswith(SUFFIX):
                continue
            rel = f"{rel_dir}/{name}" if rel_dir else name
            # What `paths.from_abs(root / rel)` returns, without two Path objects per file
            # (pathlib was 2/3 of a 10k-note scan, which runs beside the first requests).
            rel = "" if paths.is_hidden(rel) else unicodedata.normalize("NFC", rel)
            if not rel or os.path.islink(os.path.join(dirpath, name)):
                continue  # links are never indexed (see `rows.read_note_file`)
            files.add(rel)
            if indexed(rel):
                try:
                    st = os.stat(os.path.join(dirpath, name))
                except OSError:
                    continue
                notes[rel] = (st.st_mtime, st.st_size)
    return notes, files


def scan_with_paths(paths: VaultPaths) -> tuple[dict[str, tuple[float, int]], set[str], PathSet]:
    """`scan`, plus the link-resolution index of the files (built here to stay off the event loop);
    temp files a crashed write left behind are removed on the way (`service.vault.temps.sweep`)."""
    temps: list[str] = []
    notes, files = scan(paths, temps)
    if temps:
        sweep(paths.root, temps)
    return notes, files, PathSet(files)


def read_present(root: Path, paths: Sequence[str]) -> tuple[set[str], dict[str, rows.NoteInput]]:
    """Which of `paths` are files now, and the notes among them as read."""
    present: set[str] = set()
    read: dict[str, rows.NoteInput] = {}
    for rel in paths:
        if not (root / rel).is_file():
            continue
        present.add(rel)
        if indexed(rel):
            item = rows.read_note_file(root, rel)
            if item is not None:
                read[rel] = item
    return present, read
