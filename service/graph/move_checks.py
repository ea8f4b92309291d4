"""The checks a move makes before anything is written: its targets are free and are not the
paths they come from (`check_targets`), and it makes no case twin (`check_twins`), as the file
layer's own check would refuse it half way (`VaultFiles.check_new`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from service.errors import AlreadyExists, NoteNotFound, PathInvalid
from service.graph.linkpath import PathSet
from service.vault.casing import refuse_case_twin
from service.vault.vault import Vault


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:  # one of them is gone meanwhile: not the same file
        return False


def check_targets(vault: Vault, moves: Mapping[str, str], existing: PathSet, *, folder: bool = False) -> None:
    if not moves and not folder:  # a folder without files still moves (its subfolders with it)
        raise NoteNotFound("nothing to move", details={})
    targets = list(moves.values())
    for old, new in moves.items():
        if old == new:
            raise PathInvalid(
                "the new path is the same as the old one",
                details={"path": old, "reason": "same_path"},
                hint="Nothing to move: the note or folder is at that path already.",
            )
        there = vault.paths.resolve(new).abs
        # A rename in letter case only (`meeting notes` → `Meeting Notes`) meets its own file
        # (in the case-blind set, on a case-blind disk), never another: that one still refuses.
        itself = new.lower() == old.lower() and (not there.exists() or _same_file(there, vault.paths.resolve(old).abs))
        if (new in existing and new not in moves or there.exists()) and not itself:
            raise AlreadyExists(f"something already exists at {new!r}", details={"path": new})
    if len(set(t.lower() for t in targets)) != len(targets):
        raise AlreadyExists("two files would move to the same path", details={})


def check_twins(vault: Vault, moves: Mapping[str, str], folder: tuple[str, str] | None) -> None:
    """Refuse the case twins the move would make as the move itself does (`VaultFiles.check_new`),
    so a preview answers what the move then does: a folder by its new path, else each file."""
    for old, new in [(folder[0], folder[1])] if folder else moves.items():
        refuse_case_twin(vault.paths.root, new, itself=old)
