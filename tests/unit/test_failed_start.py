"""A start that fails raises its error and leaves nothing running.

The cache database opens (its connection threads start), then the data folder cannot be made:
`storage.data_dir` names a file, as an unwritable or full disk fails the start. Before, the
harness's `started()` (and `vaultgate serve`) raised, but the open database's threads were never
closed and kept the process from exiting: a test run hung at its end, after its last test."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started


def _ended(threads: set[threading.Thread]) -> list[str]:
    """The names of the threads that are still alive after a bounded wait for each."""
    for thread in threads:
        thread.join(10)  # a bound for a hang, not a measure: a closed connection's thread ends at once
    return sorted(t.name for t in threads if t.is_alive())


async def test_a_start_that_fails_raises_and_leaves_no_thread(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    occupied = tmp_path / "a-file"
    occupied.write_text("not a folder\n")
    before = set(threading.enumerate())
    with pytest.raises(OSError):  # noqa: PT012 - the body is the start itself
        async with started(make_vault(), storage={"cache_dir": tmp_path / "cache", "data_dir": occupied / "data"}):
            pytest.fail("the start succeeded with its data folder inside a file")
    assert (tmp_path / "cache/cache.db").exists()  # the cache database had been opened
    assert _ended(set(threading.enumerate()) - before) == []


async def test_a_start_after_a_failed_one_serves(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    """The failed start closed its databases: the same folders serve once the obstacle is gone."""
    vault, occupied = make_vault(), tmp_path / "data"
    occupied.write_text("not a folder\n")
    storage = {"cache_dir": tmp_path / "cache", "data_dir": occupied / "state"}
    with pytest.raises(OSError):
        async with started(vault, storage=storage):
            pass
    occupied.unlink()
    async with started(vault, storage=storage) as h:
        await h.indexed()
        assert (await h.ok("read_note", path="Welcome"))["path"] == "Welcome.md"


async def test_a_component_whose_own_start_fails_halfway_is_stopped(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A component that started something (here the indexer, its watcher and tasks) and then failed
    is stopped with the others: before, only the components whose start had returned were."""
    from service.indexer.runner import VaultIndexer

    start, stopped = VaultIndexer.start, []

    async def failing(self: VaultIndexer) -> None:
        await start(self)
        raise OSError("the disk failed halfway through the indexer's start")

    async def stop(self: VaultIndexer, real: Callable[..., Any] = VaultIndexer.stop) -> None:
        stopped.append(self)
        await real(self)

    monkeypatch.setattr(VaultIndexer, "start", failing)
    monkeypatch.setattr(VaultIndexer, "stop", stop)
    before = set(threading.enumerate())
    with pytest.raises(OSError, match="halfway"):
        async with started(make_vault()):
            pytest.fail("the start succeeded")
    assert len(stopped) == 1
    assert _ended(set(threading.enumerate()) - before) == []
