"""Which folders the file watcher watches when the vault holds a folder whose name is not UTF-8.

`watchfiles` (1.x) cannot watch such a folder, nor any folder above it recursively: setting a
recursive watch up opens every folder below, the OS reports that opening under the folder's
path, and a path that is not UTF-8 makes the watch fail for good (the error stays set: every
later wait raises it again, and the batch being formed is lost). Watching the vault root
recursively therefore failed at once, and again after every restart (`watch.py`).

`plan` splits the watch so that no such folder is ever below a recursive watch: the folders on
the way down to one (the root among them) are watched on their own, every other folder beside
them with all below it, and the folder itself not at all (the index leaves it out anyway:
`scan.py`, `issues.py` `name_not_utf8`). A watch on its own still reports the entries directly
in its folder, so a program that opens the folder (or touches a file whose name is not UTF-8)
still ends that watch once; the watcher then starts again around it (`watch.py`).

The walk lists every folder (never opening one whose name is not UTF-8, and never following a
symlink); it blocks on the file system: run it in a worker thread.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from service.vault.decoding import UTF8, is_utf8_bytes


@dataclass(frozen=True, slots=True)
class WatchPlan:
    recursive: tuple[str, ...]  # watched with everything below them
    alone: tuple[str, ...]  # watched on their own (their entries, not below)
    skipped: tuple[str, ...]  # the folders not watched: names not UTF-8 (as printable text)


def _folders(path: bytes) -> list[bytes]:
    """The folders directly in `path` (not symlinks); none when it cannot be read."""
    try:
        with os.scandir(path) as entries:
            return [entry.path for entry in entries if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def plan(root: str) -> WatchPlan:
    """The watch of `root` that leaves out every folder whose name is not UTF-8 (module docstring)."""
    top = os.fsencode(root)
    bad: list[bytes] = []
    stack = [top]
    while stack:
        for folder in _folders(stack.pop()):
            if is_utf8_bytes(os.path.basename(folder)):
                stack.append(folder)
            else:
                bad.append(folder)  # never opened
    if not bad:
        return WatchPlan((root,), (), ())
    above: set[bytes] = {top}
    for folder in bad:
        parent = os.path.dirname(folder)
        while parent != top and parent not in above:
            above.add(parent)
            parent = os.path.dirname(parent)
    skipped = set(bad)
    recursive = sorted(
        folder for here in above for folder in _folders(here) if folder not in above and folder not in skipped
    )
    return WatchPlan(
        tuple(os.fsdecode(folder) for folder in recursive),
        tuple(os.fsdecode(folder) for folder in sorted(above)),
        tuple(folder.decode(UTF8, errors="backslashreplace") for folder in sorted(bad)),
    )
