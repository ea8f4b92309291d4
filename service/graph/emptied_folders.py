"""What a folder move leaves behind: its empty subfolders carried to the new place, and the
folders its files left empty removed (`service.graph.moves.apply_plan`, and a move's undo).
Never through a symbolic link, never the vault root, never a hidden folder."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping

from service.errors import PathInvalid
from service.vault import dirfd
from service.vault.vault import Vault


def carry_empty_folders(vault: Vault, src: str, dst: str) -> None:
    """What a folder move leaves at `src` once its files are gone: each visible subfolder that is
    now empty is made again under `dst` and removed from `src` (deepest first), and `src` goes if
    it is empty. Hidden folders (and any folder holding a hidden file) stay where they are, as
    the files a move never takes; a symlinked folder is never followed."""
    root = vault.paths.resolve(src).abs
    if not root.is_dir() or root.is_symlink():
        return
    found: list[str] = []
    for walked, dirs, _files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        rel = os.path.relpath(walked, root)
        found.append("" if rel == "." else rel.replace(os.sep, "/"))
    for rel in sorted(found, key=lambda r: (r.count("/"), r), reverse=True):
        here = root / rel if rel else root
        with contextlib.suppress(OSError, PathInvalid):
            if any(here.iterdir()):
                continue
            target = vault.paths.resolve(f"{dst}/{rel}" if rel else dst)
            dirfd.mkdirs(vault.paths.root, target.rel)  # through no link: a swapped folder fails here
            dirfd.rmdir(vault.paths.root, f"{src}/{rel}" if rel else src)


def prune_empty_folders(vault: Vault, moves: Mapping[str, str]) -> None:
    """Remove folders a move left empty (deepest first), never the vault root."""
    folders: set[str] = set()
    for old in moves:
        parts = old.split("/")[:-1]
        folders.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    for folder in sorted(folders, key=lambda f: f.count("/"), reverse=True):
        dirfd.rmdir(vault.paths.root, folder)  # never through a link: an outside folder is left alone
