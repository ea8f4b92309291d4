"""Folders the inotify watch cannot watch (`service.indexer.inotify.SKIPPED_ERRNOS`): a folder not
readable to the server, or one whose path is longer than the OS takes, is left out and the rest
of the vault is watched (as `watchfiles` did with `ignore_permission_denied`), where the first
such folder ended every watch and the watcher tried again every few seconds for good; a folder
made readable later is watched from its `chmod`. A root that is missing or a symlink is refused
(`WatchLost`: the watcher tries again), never walked through the link."""

from __future__ import annotations

import asyncio
import ctypes
import errno
import os
from pathlib import Path
from typing import Any

import pytest

from service.indexer import inotify, watch
from service.indexer.inotify import ADDED, MODIFIED, Inotify, WatchLost
from service.vault.paths import VaultPaths
from tests.unit.indexer.test_inotify import Applied

pytestmark = pytest.mark.skipif(not inotify.available(), reason="inotify is Linux's")
WITHIN = 10.0


def too_deep(top: Path, name: str = "x" * 250, levels: int = 18) -> None:
    """Folders nested past PATH_MAX (4096 bytes) below `top`, a note at the bottom (made through
    folder descriptors: no path to them is short enough to name)."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.close(os.open("Deep.md", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    finally:
        os.close(fd)


class Refusing:
    """The C library, with `inotify_add_watch` refused (EACCES) for the folders in `refused`, as it
    is for a folder the server's user may not read (a test run as root reads every folder)."""

    def __init__(self, refused: set[bytes]) -> None:
        self.real = inotify._libc()
        self.refused = refused

    def inotify_add_watch(self, fd: int, path: bytes, mask: int) -> int:
        if path in self.refused:
            ctypes.set_errno(errno.EACCES)
            return -1
        return int(self.real.inotify_add_watch(fd, path, mask))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def _settled(watch_: Inotify) -> set[tuple[int, str]]:
    got: set[tuple[int, str]] = set()
    while more := watch_.drain():
        asyncio.run(watch_.walked())  # as the watcher does before it lists a batch
        got |= more
    return got


def test_a_folder_too_deep_to_watch_is_left_out_and_the_rest_is_watched(tmp_path: Path) -> None:
    (tmp_path / "Sub").mkdir()
    too_deep(tmp_path / "Sub")
    w = Inotify(str(tmp_path))
    try:
        w.open()  # was OSError(ENAMETOOLONG): no watch of the vault at all
        (tmp_path / "Sub" / "New.md").write_text("new\n", encoding="utf-8")
        assert (ADDED, str(tmp_path / "Sub" / "New.md")) in _settled(w)
    finally:
        w.close()


def test_an_unreadable_folder_is_left_out_and_watched_once_made_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "Locked"
    (locked / "Inner").mkdir(parents=True)
    (tmp_path / "Open").mkdir()
    refusing = Refusing({os.fsencode(locked)})
    monkeypatch.setattr(inotify, "_libc", lambda: refusing)
    w = Inotify(str(tmp_path))
    try:
        w.open()  # was PermissionError: the watcher failed and tried again every 5 s for good
        assert os.fsencode(locked) not in w._wds
        (tmp_path / "Open" / "Seen.md").write_text("seen\n", encoding="utf-8")
        assert (ADDED, str(tmp_path / "Open" / "Seen.md")) in _settled(w)
        refusing.refused.clear()
        os.chmod(locked, 0o755)  # made readable: its parent reports the folder's attributes
        assert (MODIFIED, str(locked)) in _settled(w)
        (locked / "Inner" / "Later.md").write_text("later\n", encoding="utf-8")
        assert (ADDED, str(locked / "Inner" / "Later.md")) in _settled(w)
    finally:
        w.close()


def test_a_missing_or_symlinked_root_is_refused_not_walked(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "Secret").mkdir(parents=True)
    os.symlink(outside, tmp_path / "vault")
    for root in (tmp_path / "vault", tmp_path / "missing"):
        w = Inotify(str(root))
        try:
            with pytest.raises(WatchLost):
                w.open()  # was: no root watch, and the link's folders watched under the vault's name
            assert w.watches == 0
        finally:
            w.close()


async def test_the_watcher_sees_edits_in_a_vault_holding_a_folder_it_cannot_watch(tmp_path: Path) -> None:
    """Through `Watcher`: the too-deep folder no longer keeps the vault from being watched."""
    too_deep(tmp_path)
    got = Applied()
    watcher = watch.Watcher(VaultPaths(tmp_path), "v", got.apply, got.publish)
    await watcher.start()
    try:
        await asyncio.wait_for(watcher.established.wait(), WITHIN)
        (tmp_path / "Edited.md").write_text("edited\n", encoding="utf-8")
        await got.seen("modified:Edited.md")
        assert watcher.restarts == 0
    finally:
        await watcher.stop()


async def test_a_vault_folder_away_is_told_in_one_line_and_watched_once_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The vault's folder away (moved, unmounted) when the watch is set up: the watch held no
    watch at all and said nothing, for good. Now each try fails with a one-line warning naming
    the reason (no traceback: nothing failed here), and the watch is in place once it is back."""
    monkeypatch.setattr(watch, "RESTART_MIN_S", 0.0)
    monkeypatch.setattr(watch, "RESTART_MAX_S", 0.01)
    root = tmp_path / "v"
    got = Applied()
    watcher = watch.Watcher(VaultPaths(root), "v", got.apply, got.publish)
    caplog.set_level("WARNING", logger="service.indexer.watch")
    await watcher.start()
    try:
        for _ in range(int(WITHIN / 0.01)):
            if watcher.restarts >= 2:
                break
            await asyncio.sleep(0.01)
        told = [r for r in caplog.records if "failed" in r.getMessage()]
        assert told and all(not r.exc_info and "missing" in r.getMessage() for r in told)
        root.mkdir()
        await asyncio.wait_for(watcher.established.wait(), WITHIN)
        (root / "Back.md").write_text("back\n", encoding="utf-8")
        await got.seen("modified:Back.md")
    finally:
        await watcher.stop()


async def test_a_tree_moved_in_is_watched_a_step_at_a_time_letting_the_loop_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder moved in is watched with every folder below it; the walk ran inside `drain`, on
    the event loop, all at once (a tree of 20,400 folders held it 0.28-0.37 s). Now `walked` watches
    `WALK_STEP` folders at a time and lets the loop run between; a tree moved away again before
    its walk leaves no watch under its old name."""
    monkeypatch.setattr(inotify, "WALK_STEP", 4)
    vault, elsewhere = tmp_path / "vault", tmp_path / "elsewhere"
    vault.mkdir()
    for n in range(40):
        (elsewhere / "Tree" / f"F{n}" / "Inner").mkdir(parents=True)
    w = Inotify(str(vault))
    try:
        w.open()
        (elsewhere / "Tree").rename(vault / "Tree")
        assert (ADDED, str(vault / "Tree")) in w.drain()
        turns = 0

        async def ticking() -> None:
            nonlocal turns
            while True:
                turns += 1
                await asyncio.sleep(0)

        ticker = asyncio.ensure_future(ticking())
        await w.walked()
        ticker.cancel()
        assert w.watches == 1 + 1 + 80 and turns >= 80 // 4  # the root, Tree, each F and Inner
        (vault / "Tree" / "F7" / "Inner" / "Seen.md").write_text("seen\n", encoding="utf-8")
        assert (ADDED, str(vault / "Tree" / "F7" / "Inner" / "Seen.md")) in w.drain()
        (vault / "Tree").rename(elsewhere / "Tree")
        (elsewhere / "Tree").rename(vault / "Again")
        w.drain()  # Tree gone, Again come (its walk pending)
        (vault / "Again").rename(elsewhere / "Again")
        w.drain()
        await w.walked()
        assert [p for p in w._wds if p != os.fsencode(vault)] == []
    finally:
        w.close()
