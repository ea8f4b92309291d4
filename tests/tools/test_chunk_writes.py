"""A move's link rewrites are written a chunk (`TOGETHER`) at a time on the chunk's own writer
threads, and each folder they renamed a note in is fsynced once per chunk, when every write of the
chunk has ended and before the next chunk starts (`service.vault.chunks`). A write outside a chunk
(`write_note`) runs on the default threads and syncs its folder before it answers, as before.

Before, every rewrite fsynced its own folder (eight notes of one folder: eight folder fsyncs a
chunk) and ran on the default pool every other caller shares (six threads on a 2-core machine:
two of a chunk of eight waited for a thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.app import VaultgateApp
from service.vault import files
from service.vault.commit import TOGETHER
from tests.conftest import Harness, settings_for, snapshot, started
from tests.long_changes import Hold

A_NOTES = TOGETHER + TOGETHER // 2  # a chunk of A's notes, then half a chunk of A's beside B's
VAULT = {
    "Hub.md": "# Hub\n",
    **{f"A/n{i:03}.md": f"# n{i}\n\nSee [[Hub]].\n" for i in range(A_NOTES)},
    **{f"B/m{i:03}.md": f"# m{i}\n\nSee [[Hub]].\n" for i in range(TOGETHER // 2)},
}


def spy(monkeypatch: pytest.MonkeyPatch, root: Path) -> list[tuple[str, str, str]]:
    """Every write of a note under A/ or B/ (`write_in` entered) and every fsync of A or B, in the
    order they happen: (event, what, thread name)."""
    log: list[tuple[str, str, str]] = []
    lock = threading.Lock()
    folders = {(st.st_dev, st.st_ino): name for name in ("A", "B") if (st := os.stat(root / name))}
    fsync, write_in = os.fsync, files.write_in

    def note(event: str, what: str) -> None:
        with lock:
            log.append((event, what, threading.current_thread().name))

    def spied_fsync(fd: int) -> None:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode) and (folder := folders.get((st.st_dev, st.st_ino))) is not None:
            note("sync", folder)
        fsync(fd)

    def spied_write_in(folder_fd: int, name: str, data: bytes, *, rel: str, **more: Any) -> os.stat_result:
        if rel.startswith(("A/", "B/")):
            note("write", rel)
        return write_in(folder_fd, name, data, rel=rel, **more)

    monkeypatch.setattr(os, "fsync", spied_fsync)
    monkeypatch.setattr(files, "write_in", spied_write_in)
    return log


async def test_a_chunk_of_rewrites_runs_on_the_writer_threads_and_syncs_each_folder_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "vault"
    for rel, text in VAULT.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    async with started(root) as vg:
        await vg.indexed()
        log = spy(monkeypatch, root)
        done = await vg.ok("rename_note", path="Hub", new_path="Centre")
        assert done["notes_rewritten"] == len(VAULT) - 1
        first, second = log[:TOGETHER], log[TOGETHER + 1 : 2 * TOGETHER + 1]
        assert sorted(w for _, w, _ in first) == [f"A/n{i:03}.md" for i in range(TOGETHER)], log
        assert log[TOGETHER][:2] == ("sync", "A"), log  # once, after the whole chunk, before the next
        assert {e for e, _, _ in second} == {"write"}, log
        assert sorted(e[:2] for e in log[2 * TOGETHER + 1 :]) == [("sync", "A"), ("sync", "B")], log
        assert all(t.startswith("vaultgate-write") for _, _, t in log), log
        assert all(b"[[Centre]]" in (root / rel).read_bytes() for rel in VAULT if rel != "Hub.md")

        log.clear()
        await vg.ok("write_note", path="A/alone.md", content="# Alone\n", mode="create")
        assert [e[:2] for e in log] == [("write", "A/alone.md"), ("sync", "A")]  # its own, before the answer
        assert not log[0][2].startswith("vaultgate-write"), log


def _folders_open(root: Path) -> list[str]:
    """The folders of the vault this process holds a descriptor of (a chunk's, kept for its sync)."""
    held = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith(str(root)) and os.path.isdir(target):
                held.append(target)
    return held


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="the process's descriptors (/proc)")
async def test_a_rename_cancelled_at_every_turn_mid_chunk_ends_and_is_rolled_back_whole(
    make_vault: Callable[..., Path],
) -> None:
    """The change's task is cancelled while a chunk writes, then again at every turn of the event
    loop (the stdio fast path cancels a call's task at each `notifications/cancelled` its client
    sends): the chunk's writes end, its folders are synced and let go, every write made is put
    back, and the call ends. Before, the wait for the chunk's writes never saw them end while the
    cancels kept coming (the call hung), and a cancel landing on the rollback stopped it at its
    next undo (notes left rewritten until the next start rolled the journal back)."""
    root = make_vault(VAULT)
    hold = Hold("commit", TOGETHER + 3)  # inside the second chunk
    app = VaultgateApp(settings_for(root), step_hook=hold)
    async with app.running():
        vg = Harness(app, root)
        await vg.indexed()
        before = snapshot(root)
        task = asyncio.ensure_future(vg.call("rename_note", path="Hub", new_path="Centre"))
        await asyncio.wait_for(hold.reached.wait(), 60)
        task.cancel()
        hold.release.set()
        for _ in range(1_000_000):  # turns, not time: ~7,000 here (20 writes and their undos)
            if task.done():
                break
            task.cancel()
            await asyncio.sleep(0)
        assert task.done(), "the call did not end while cancelled at every turn"
        with pytest.raises(asyncio.CancelledError):
            await task
        assert snapshot(root) == before and _folders_open(root) == []
        await vg.ok("rename_note", path="Hub", new_path="Centre")  # the vault is as it was: the rename goes
        assert (root / "Centre.md").is_file() and "[[Centre]]" in (root / "A/n000.md").read_text()
