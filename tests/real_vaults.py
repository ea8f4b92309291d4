"""Where the external test data lives: the one place that reads `VAULTGATE_TEST_DATA`.

`VAULTGATE_TEST_DATA` names a folder holding `vaults/` (real Obsidian vaults, each with a
`<name>.stats.json` of published statistics beside it) and `scifact/` (the BEIR SciFact corpus).
The data is not part of the repository; `.ci/run` points the variable at it when it is present.
Tests that need it mark themselves with `needs(path)` (or call `pytest.skip(missing(path))`) and
skip with a reason that says what to set; a plain clone runs everything else.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

ENV = "VAULTGATE_TEST_DATA"

_root = os.environ.get(ENV, "").strip()
DATA: Path | None = Path(_root).expanduser().resolve() if _root else None
# Without the variable every data path sits below /dev/null, which is never a directory, so
# `path.is_dir()` is simply False and module-level `VAULTS / name` expressions still work.
_ABSENT = Path(os.devnull) / ENV
VAULTS = (DATA or _ABSENT) / "vaults"
SCIFACT = (DATA or _ABSENT) / "scifact"


def missing(path: Path) -> str:
    """Why `path` is not there: the skip reason for a test that needs it."""
    if DATA is None:
        return f"{ENV} is not set (a folder holding vaults/ and scifact/; see docs/testing.md)"
    return f"{path} not found ({ENV}={DATA})"


def needs(path: Path) -> pytest.MarkDecorator:
    """Skip the test unless `path` (a real vault or the SciFact folder) exists."""
    return pytest.mark.skipif(not path.exists(), reason=missing(path))


def writable_copy(src: Path, dest: Path, **copytree: Any) -> Path:
    """A copy of a vault of the test data that may be changed as a user's vault is: the data may
    be read-only where it is kept (files 0444), and copies keep modes, while a note whose file has
    no write permission is not changed by vaultgate (`service.vault.readonly`). Every copied file
    and folder gets its owner's write permission."""
    shutil.copytree(src, dest, **copytree)
    for path in (dest, *dest.rglob("*")):
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return dest


def _link_or_copy(src: str, dest: str) -> None:
    try:
        os.link(src, dest)
    except OSError:  # another file system (or no hard links there): a copy
        shutil.copy2(src, dest)


def read_only_copy(src: Path, dest: Path) -> Path:
    """The vault's tree made again at `dest` of hard links to its files, for a test that only
    reads it (indexes it, counts it): the same bytes, modes and times as a copy, made in ~1 s
    where copying the 13,415-note vault took 15-40 s on the 2-core CI machine. Never hand it to
    a call that writes: a file changed in place would change the test data (vaultgate's own
    writes replace a file by a rename and would not). Its folders, new ones, get their owner's
    write permission: removing the tree then never needs to change a file's mode, which for a
    link is the test data's own."""
    shutil.copytree(src, dest, copy_function=_link_or_copy)
    for path in (dest, *dest.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return dest
