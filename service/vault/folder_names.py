"""The folders a folder argument that names none may have meant: `archive` for `Archive`, `Archve`.

A folder argument is a vault path as written; when no folder is there, the answer names the
folders the caller may have meant, so that the next call can use one: the path followed down the
vault one name at a time in any letter case (names compare as Obsidian's links compare them,
`casing.fold`), and at the first name that fits no folder, the closest names of the folders
beside it. Only the folders on that way are listed (one directory listing per name), so a miss in
a large vault costs a few listings. Hidden names (`.obsidian`, `.trash`) are never suggested;
`visible(rel)` says whether the caller may read a folder (the path ACL).

A folder named by its own name alone, as a note is ('Obsidian Sync' for Help/Obsidian Sync), is
suggested first: the folders whose last names are the argument's, in any letter case, found by
a walk of the vault's folders, nearest the top first, that stops after reading `MAX_WALK`
directory entries (a miss costs at most that much; in a vault of more files, a folder deeper
than the walk reached is not suggested).
"""

from __future__ import annotations

import difflib
import os
import unicodedata
from collections import deque
from collections.abc import Callable
from pathlib import Path

from service.vault.casing import fold
from service.vault.spelling import on_disk

MAX_SUGGESTIONS = 5
MAX_WALK = 10_000  # directory entries read looking for a folder named by its last names (~70 ms)


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
    named = _ending_in(root, rel, visible)
    return (named + [f for f in _down_the_path(root, rel, visible) if f not in named])[:MAX_SUGGESTIONS]


def _ending_in(root: Path, rel: str, visible: Callable[[str], bool]) -> list[str]:
    """The folders, below the vault's top, whose last names are `rel`'s (any letter case),
    nearest the top first; the walk stops after `MAX_WALK` directory entries (files count)."""
    want = [fold(n) for n in rel.split("/") if n]
    if not want:
        return []
    found: list[str] = []
    todo, seen = deque([""]), 0
    while todo and seen < MAX_WALK:
        here = todo.popleft()
        names, count = _listing(root, here)
        seen += count
        for name in names:
            sub = f"{here}/{name}".lstrip("/")
            if not visible(sub):
                continue
            todo.append(sub)
            parts = sub.split("/")
            if len(parts) > len(want) and [fold(n) for n in parts[-len(want) :]] == want:
                found.append(sub)
    return sorted(found, key=lambda f: (f.count("/"), f))[:MAX_SUGGESTIONS]


def _listing(root: Path, rel: str) -> tuple[list[str], int]:
    """`_subfolders(root, rel)` and how many entries the folder holds (files too)."""
    where = root / on_disk(str(root), rel) if rel else root
    try:
        with os.scandir(where) as scan:
            entries = list(scan)
    except OSError:
        return [], 1
    names = [e.name for e in entries if not e.name.startswith(".") and e.is_dir()]
    return sorted(n if n.isascii() else unicodedata.normalize("NFC", n) for n in names), len(entries) + 1


def _down_the_path(root: Path, rel: str, visible: Callable[[str], bool]) -> list[str]:
    """The path followed down the vault, name by name in any letter case, then the closest names."""
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
