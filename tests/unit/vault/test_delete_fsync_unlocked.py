"""A delete holds the note's cross-process lock for its last compare and its unlink or move to
the trash only: the folders' fsyncs come after it is released, as a write's do (`temps.write_in`).
Before, the lock was held across one or two folder fsyncs, so on a slow disk another process's
write to that note, or to any note sharing its lock slot, waited for the disk and was answered
`conflict: locked by another process` with nothing written (review R3 s63 #4). Through the
dispatch chain: every folder fsync made while delete_note runs finds the note's lock free."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from service.errors import Conflict
from service.vault import dirfd, notelocks
from tests.conftest import started


def _lock_free(root: Path, rel: str) -> bool:
    """Whether another lock holder (another open file, as another process's) takes it at once."""
    try:
        with notelocks.held(root, rel, wait=0):
            return True
    except Conflict:
        return False


@pytest.mark.parametrize("permanent", [True, False], ids=["unlink", "to-trash"])
async def test_a_delete_syncs_its_folders_after_releasing_the_note_s_lock(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, permanent: bool
) -> None:
    root = make_vault({"Home.md": "# Home\n", "Memory/Ann.md": "# Ann\n"})
    seen: list[bool] = []  # per folder fsync while the delete runs: whether the note's lock was free
    deleting: list[bool] = []
    fsync = os.fsync

    def watched_fsync(fd: int) -> None:
        if deleting and stat.S_ISDIR(os.fstat(fd).st_mode):
            seen.append(_lock_free(root, "Memory/Ann.md"))
        fsync(fd)

    async with started(root) as vg:
        await vg.indexed()
        monkeypatch.setattr(dirfd.os, "fsync", watched_fsync)
        deleting.append(True)
        if permanent:
            await vg.confirmed("delete_note", path="Memory/Ann.md", permanent=True)
        else:
            await vg.ok("delete_note", path="Memory/Ann.md")
        deleting.clear()
        monkeypatch.setattr(dirfd.os, "fsync", fsync)
    assert not (root / "Memory/Ann.md").exists()
    assert seen, "no folder fsync seen"
    assert all(seen), f"a folder fsync ran while the note's lock was held: {seen}"
