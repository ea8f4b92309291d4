"""The folders a folder argument that names none may have meant: `archive` for `Archive`, `Archve`.

A folder argument is a vault path as written; when no folder is there, the answer names the
folders the caller may have meant, so that the next call can use one: the path followed down the
vault one name at a time in any letter case (names compare as Obsidian's links compare them,
`casing.fold`), and at the first name that fits no folder, the closest names of the folders
beside it. Only the folders on that way are listed (one directory listing per name), so a miss in
a large vault costs a few listings. Hidden names (`.obsidian`, `.trash`) are never suggested;
`visible(rel)` says whether the caller may read a folder (the path ACL).
"""

from __future__ import annotations

import difflib
import os
import unicodedata
from collections.abc import Callable
from pathlib import Path

from service.vault.casing import fold
from service.vault.spelling import on_disk

MAX_SUGGESTIONS = 5


def _subfolders(root: Path, rel: str) -> list[str]:
    """The names of the folders directly in `rel`, in NFC, hidden ones left out."""
    where = root / on_disk(str(root), rel) if rel else root
    try:
        with os.scandir(where) as entries:
            names = [e.name for e in entries if not e.name.startswith(".") and e.is_dir()]
    except OSError:
        return []
    return sorted(n if n.isascii() else unicodedata.normalize("NFC", n) for n in names)


def folder_suggestions(root: Path, rel: str, visible: Callable[[str], bool]) -> list[str]:
    """Up to five vault folders `rel` (a vault path naming no folder) may have meant, best first."""
    here = ""
    for name in rel.split("/"):
        names = _subfolders(root, here)
        same = [n for n in names if fold(n) == fold(name) and visible(f"{here}/{n}".lstrip("/"))]
        if len(same) == 1:
            here = f"{here}/{same[0]}".lstrip("/")
            continue
        if not same:  # the closest names beside it, compared in any letter case
            by_fold = {fold(n): n for n in names if visible(f"{here}/{n}".lstrip("/"))}
            close = difflib.get_close_matches(fold(name), list(by_fold), n=MAX_SUGGESTIONS, cutoff=0.6)
            same = [by_fold[c] for c in close]
        return [f"{here}/{n}".lstrip("/") for n in same][:MAX_SUGGESTIONS]
    return [here] if here and here != rel else []
