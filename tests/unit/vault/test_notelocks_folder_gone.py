"""The cross-process lock folder removed while the server runs (a cleaner of the data home) is
made again by the next write, which takes the note's lock: before, the folder was made once per
process, so every later write went on unlocked, a warning each (review R3 s63 #11). And a lock on a
removed file guards nothing: a process that locked (or was waiting for) the old file takes the
re-made one too before it writes (review R1 s64 F3: before, two processes both "held" the lock)."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from service.errors import Conflict
from service.memory import store as memory_store
from service.vault import notelocks
from service.vault.events import ChangeBus
from service.vault.files import VaultFiles
from service.vault.paths import VaultPath, VaultPaths
from tests.conftest import started
from tests.unit.vault.test_notelocks import HOLDER, ROOT, _held_elsewhere, _python

NOTE = "---\ntype: entity\nentityType: person\n---\n# Ann\n\n- seed\n"


def _adding(text: str) -> dict[str, object]:
    return {"observations": [{"entityName": "Ann", "contents": [text]}]}


async def test_a_write_after_the_lock_folder_was_removed_takes_the_note_s_lock(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = make_vault({"Memory/Ann.md": NOTE})
    async with started(root) as vg:
        await vg.ok("add_observations", **_adding("first fact"))
        folder = notelocks.lock_folder(str(root))
        assert folder is not None
        slot = Path(folder) / notelocks.slot_of("Memory/Ann.md")
        assert slot.is_file()
        shutil.rmtree(Path(folder).parent)  # the data home's `locks/` cleared while the server runs
        with caplog.at_level(logging.WARNING, logger="vaultgate.vault"):
            await vg.ok("add_observations", **_adding("second fact"))
        assert slot.is_file(), "the lock folder was not made again: the write went on unlocked"
        assert not [r for r in caplog.records if "not taken" in r.getMessage()]
        monkeypatch.setattr(notelocks, "WAIT_SECONDS", 0.2)
        # the memory store tries a write whose note changed or is locked 50 times (50 x 0.2 s): twice
        # shows the same conflict
        monkeypatch.setattr(memory_store, "CAS_TRIES", 2)
        with _held_elsewhere(root, "Memory/Ann.md"):  # the lock file the write takes is the one others take
            await vg.err("add_observations", "conflict", **_adding("third fact"))
        text = (root / "Memory/Ann.md").read_text(encoding="utf-8")
    assert "second fact" in text and "third fact" not in text


@contextlib.contextmanager
def _holding(root: Path, rel: str) -> Iterator[subprocess.Popen[str]]:
    """Another vaultgate process holding the note's lock (on the file its path names now) until
    a line is written to it, or the block ends."""
    args = _python(HOLDER, str(root), rel)
    with subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT) as holder:
        assert holder.stdout is not None and holder.stdin is not None
        try:
            assert holder.stdout.readline().strip() == "held"
            yield holder
        finally:
            if holder.poll() is None:
                holder.stdin.write("\n")
                holder.stdin.flush()
            holder.wait(timeout=60)


def _release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.write("\n")
    holder.stdin.flush()
    holder.wait(timeout=60)


async def test_a_write_whose_lock_file_is_removed_while_it_holds_it_waits_for_the_re_made_one_s_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write holds the note's lock; right after its last compare a cleaner removes the lock
    folder and another process locks the re-made file. The write's lock is on a file nobody else
    can open any more: it takes the re-made one too, waits for that process, and answers
    `conflict` with nothing written (before: it wrote while the other process held the lock)."""
    root = tmp_path / "vault"
    root.mkdir()
    (root / "Ann.md").write_text("first\n", encoding="utf-8")
    files = VaultFiles(VaultPaths(root), ChangeBus(), max_concurrent=1, trash_folder=".trash")
    vp = files.paths.resolve("Ann.md")
    original = VaultFiles.check_etag
    others = contextlib.ExitStack()

    def cleaner_then_other_process(self: VaultFiles, at: VaultPath, expected: str | None) -> bool:
        existed = original(self, at, expected)
        if threading.current_thread() is not threading.main_thread() and not others._exit_callbacks:
            folder = notelocks.lock_folder(str(root))
            assert folder is not None
            shutil.rmtree(Path(folder).parent)  # the data home's `locks/` cleared
            os.makedirs(folder)
            others.enter_context(_holding(root, "Ann.md"))  # another process locks the re-made file
        return existed

    monkeypatch.setattr(VaultFiles, "check_etag", cleaner_then_other_process)
    monkeypatch.setattr(notelocks, "WAIT_SECONDS", 0.3)
    with others:
        with pytest.raises(Conflict) as refused:
            await files.write(vp, "second\n", expected_etag=files.read(vp).etag)
        assert refused.value.details["reason"] == "locked by another process"
        assert others._exit_callbacks, "the write did not run its compare under the lock"
    assert (root / "Ann.md").read_text(encoding="utf-8") == "first\n"


def _opened(path: str) -> bool:
    """Whether this process has `path` open (a waiter opened the lock file)."""
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}") == path:
                return True
    return False


def test_a_waiter_that_opened_the_removed_lock_file_does_not_enter_beside_the_re_made_one_s_holder(
    tmp_path: Path,
) -> None:
    """Process A holds the note's lock; this process waits for it (the old file open); a cleaner
    removes the lock folder and process B locks the re-made file; A ends. The waiter's lock on the
    old file guards nothing: it waits for B (before: it went in while B held the note's lock)."""
    root = tmp_path / "vault"
    root.mkdir()
    rel = "Ann.md"
    folder = notelocks.lock_folder(str(root))
    assert folder is not None
    path = os.path.join(folder, notelocks.slot_of(rel))
    b_holds = threading.Event()
    seen: list[bool] = []  # whether B held the note's lock when the waiter went in

    def waiter() -> None:
        with notelocks.held(root, rel, wait=120, check=lambda: seen.append(b_holds.is_set())):
            pass

    with _holding(root, rel) as a:
        thread = threading.Thread(target=waiter)
        thread.start()
        while not _opened(path) and thread.is_alive():
            threading.Event().wait(0.01)
        shutil.rmtree(Path(folder).parent)  # the cleaner
        os.makedirs(folder)
        with _holding(root, rel):  # B locks the re-made file
            b_holds.set()
            _release(a)
            thread.join(timeout=5)  # before the fix the waiter goes in now, beside B
            b_holds.clear()
        thread.join(timeout=120)
    assert not thread.is_alive()
    assert seen == [False], "the waiter went in while another process held the note's lock"
