"""The file watcher: edits by other programs (create, modify, delete, rename of a note or a
folder) reach the index and are published on vault.bus as origin="external"; vaultgate's own
writes, already indexed when the watcher sees them, are neither re-parsed nor re-published.

Every wait is on a bus event or the indexer's condition, bounded."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

import pytest

from service.indexer import fresh
from service.vault.events import FileChange
from tests.conftest import Harness, started
from tests.unit.indexer.recorder import WITHIN, Recorder, parses


async def _paths(vg: Harness) -> list[str]:
    return [str(r[0]) for r in await vg.app.services.db.fetchall("SELECT path FROM notes ORDER BY path")]


async def _target(vg: Harness, source: str) -> str | None:
    row = await vg.app.services.db.fetchone(
        "SELECT l.target_path FROM links l JOIN notes n ON n.id = l.src_id WHERE n.path = ?", (source,)
    )
    assert row is not None
    return None if row[0] is None else str(row[0])


@pytest.fixture
async def watched(make_vault: Callable[..., Path]) -> AsyncIterator[tuple[Harness, Recorder]]:
    files = {"Hub.md": "links to [[Topic]]\n", "Area/Topic.md": "# Topic\n\nalpha\n", "Area/Other.md": "# Other\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        recorder = Recorder()
        vg.app.vaults["main"].bus.subscribe(recorder)
        yield vg, recorder


async def test_external_modify_is_reindexed_and_published(watched: tuple[Harness, Recorder]) -> None:
    vg, recorder = watched
    (vg.root / "Area" / "Topic.md").write_text("# Topic\n\nnow mentions zanzibar #isle\n", encoding="utf-8")
    await recorder.until(lambda c: c.path == "Area/Topic.md" and c.kind == "modified")
    assert {c.origin for c in recorder.seen} == {"external"}
    found = await vg.ok("search_text", query="zanzibar")
    assert [i["path"] for i in found["items"]] == ["Area/Topic.md"]
    assert (await vg.ok("search_tags", tags=["isle"]))["items"][0]["path"] == "Area/Topic.md"


async def test_external_rename_of_a_note_moves_it_in_the_index(watched: tuple[Harness, Recorder]) -> None:
    vg, recorder = watched
    os.rename(vg.root / "Area" / "Topic.md", vg.root / "Area" / "Renamed.md")
    await recorder.until(lambda c: c.path == "Area/Renamed.md")
    await recorder.until(lambda c: c.path == "Area/Topic.md" and c.kind == "deleted")
    assert await _paths(vg) == ["Area/Other.md", "Area/Renamed.md", "Hub.md"]
    assert await _target(vg, "Hub.md") is None  # [[Topic]] names nothing any more
    assert all(c.origin == "external" for c in recorder.seen)


async def test_external_rename_of_a_folder_moves_every_note_under_it(watched: tuple[Harness, Recorder]) -> None:
    vg, recorder = watched
    os.rename(vg.root / "Area", vg.root / "Zone")
    indexer = vg.indexer("main")
    expected = ["Hub.md", "Zone/Other.md", "Zone/Topic.md"]
    paths: list[str] = []

    async def settled() -> None:
        nonlocal paths
        while (paths := await _paths(vg)) != expected:
            seen = indexer.generation
            await indexer.wait_for(lambda seen=seen: indexer.generation > seen, WITHIN)  # type: ignore[misc]

    await asyncio.wait_for(settled(), WITHIN)
    assert paths == expected
    assert await _target(vg, "Hub.md") == "Zone/Topic.md"
    assert {c.path for c in recorder.seen if c.kind == "deleted"} >= {"Area/Topic.md", "Area/Other.md"}


async def test_external_create_and_delete_are_applied(watched: tuple[Harness, Recorder]) -> None:
    vg, recorder = watched
    (vg.root / "Topic.md").write_text("# closer Topic\n", encoding="utf-8")
    await recorder.until(lambda c: c.path == "Topic.md")
    assert await _target(vg, "Hub.md") == "Topic.md"  # the same-folder file now wins
    (vg.root / "Topic.md").unlink()
    await recorder.until(lambda c: c.path == "Topic.md" and c.kind == "deleted")
    assert await _target(vg, "Hub.md") == "Area/Topic.md"


async def test_own_writes_are_parsed_once_and_not_republished_as_external(
    watched: tuple[Harness, Recorder], monkeypatch: pytest.MonkeyPatch
) -> None:
    vg, recorder = watched
    parsed = parses(monkeypatch)
    await vg.ok("create_note", path="Mine", content="# Mine\n\nwritten by an agent\n")
    await vg.ok("append_note", path="Mine", content="more\n")
    # A later external write is a barrier: once it is published, the watcher has already handled
    # the events of the writes above (they happened first).
    (vg.root / "Sentinel.md").write_text("# s\n", encoding="utf-8")
    await recorder.until(lambda c: c.path == "Sentinel.md" and c.origin == "external")
    mine = [c for c in recorder.seen if c.path == "Mine.md"]
    assert mine and all(c.origin != "external" for c in mine)
    assert parsed.count("Mine.md") == 2  # once per vaultgate write, never again by the watcher
    assert "Mine.md" in await _paths(vg)


async def test_an_own_write_seen_while_its_round_runs_is_not_applied_again(
    watched: tuple[Harness, Recorder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client's write is acknowledged before its index round runs; the watcher's event for it
    may come while that round runs or after it. The file is still as the write left it, so the
    watcher leaves it to the round: one parse per write."""
    vg, recorder = watched
    indexer = vg.indexer("main")
    parsed = parses(monkeypatch)
    gate, running = asyncio.Event(), asyncio.Event()
    apply = indexer._group._apply

    async def held(changes: Sequence[FileChange]) -> object:
        running.set()
        await gate.wait()  # the round has taken its batch and not read the file yet
        return await apply(changes)

    monkeypatch.setattr(indexer._group, "_apply", held)
    token = fresh.current.set(fresh.Mark())  # as a client's call: the index update is queued
    try:
        await vg.ok("create_note", path="Queued", content="# Queued\n\nwritten by a client\n")
    finally:
        fresh.current.reset(token)
    await asyncio.wait_for(running.wait(), WITHIN)
    assert not indexer._group.will_read("Queued.md")  # the round holds it now
    (vg.root / "Sentinel.md").write_text("# s\n", encoding="utf-8")  # a barrier, as above
    await recorder.until(lambda c: c.path == "Sentinel.md" and c.origin == "external")
    assert "Queued.md" not in parsed and "Queued.md" not in await _paths(vg)
    gate.set()
    await asyncio.wait_for(indexer.caught_up(indexer._group.queued), WITHIN)
    assert parsed.count("Queued.md") == 1 and "Queued.md" in await _paths(vg)
    # Changed by another program afterwards: applied by the watcher as any external edit.
    (vg.root / "Queued.md").write_text("# Queued\n\nnow edited elsewhere, zanzibar\n", encoding="utf-8")
    await recorder.until(lambda c: c.path == "Queued.md" and c.origin == "external")
    assert [i["path"] for i in (await vg.ok("search_text", query="zanzibar"))["items"]] == ["Queued.md"]


async def _watcher_waits_on(vg: Harness, monkeypatch: pytest.MonkeyPatch, rel: str) -> asyncio.Event:
    """An event set once the watcher has found a vaultgate write of `rel` under way."""
    files = vg.app.vaults["main"].files
    found, writing = asyncio.Event(), files.writing

    def spying(path: str) -> asyncio.Lock | None:
        lock = writing(path)
        if path == rel and lock is not None:
            found.set()
        return lock

    monkeypatch.setattr(files, "writing", spying)
    return found


async def test_an_event_during_a_write_of_ours_waits_for_it_and_is_left_to_its_round(
    watched: tuple[Harness, Recorder], monkeypatch: pytest.MonkeyPatch
) -> None:
    vg, recorder = watched
    indexer = vg.indexer("main")
    parsed = parses(monkeypatch)
    found = await _watcher_waits_on(vg, monkeypatch, "Area/Topic.md")
    lock = vg.app.vaults["main"].files.lock("Area/Topic.md")
    await lock.acquire()  # as `VaultFiles.modify` holds it while it writes
    (vg.root / "Area" / "Topic.md").write_text("# Topic\n\nrewritten by vaultgate, zanzibar\n", encoding="utf-8")
    await asyncio.wait_for(found.wait(), WITHIN)
    token = fresh.current.set(fresh.Mark())
    try:
        lock.release()
        await vg.app.vaults["main"].bus.publish([FileChange("modified", "Area/Topic.md")])  # as the write does
    finally:
        fresh.current.reset(token)
    await asyncio.wait_for(indexer.caught_up(indexer._group.queued), WITHIN)
    (vg.root / "Sentinel.md").write_text("# s\n", encoding="utf-8")
    await recorder.until(lambda c: c.path == "Sentinel.md" and c.origin == "external")
    assert parsed.count("Area/Topic.md") == 1  # by the write's own round only
    assert [i["path"] for i in (await vg.ok("search_text", query="zanzibar"))["items"]] == ["Area/Topic.md"]


async def test_an_event_during_a_write_that_changes_nothing_is_applied_after_it(
    watched: tuple[Harness, Recorder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program edits a note while a vaultgate write of it holds its lock and then gives up
    (a conflict): the watcher waited for the lock, and the edit still reaches the index."""
    vg, recorder = watched
    found = await _watcher_waits_on(vg, monkeypatch, "Area/Topic.md")
    lock = vg.app.vaults["main"].files.lock("Area/Topic.md")
    async with lock:
        (vg.root / "Area" / "Topic.md").write_text("# Topic\n\nedited elsewhere, zanzibar\n", encoding="utf-8")
        await asyncio.wait_for(found.wait(), WITHIN)
    await recorder.until(lambda c: c.path == "Area/Topic.md" and c.origin == "external")
    assert [i["path"] for i in (await vg.ok("search_text", query="zanzibar"))["items"]] == ["Area/Topic.md"]


async def test_stop_ends_every_re_reading_the_watch_failures_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each failure of the watch starts a re-reading of the vault once the new watch is in place;
    a second failure during the first re-reading (a reconcile takes seconds at 100k notes) left
    only the second one known to `stop`, and the first went on reconciling after the indexer's
    stop."""
    from service.indexer import watch as watch_module
    from service.vault.paths import VaultPaths

    calls = [0]

    class FailingTwice:
        def __init__(self, *args: object) -> None:
            pass

        def watch(self, debounce_ms: int, step_ms: int, timeout_ms: int, stop: asyncio.Event) -> object:
            calls[0] += 1
            if calls[0] <= 2:
                raise RuntimeError("a name that is not UTF-8")
            while not stop.is_set():  # the third watch holds until stopped (in its worker thread)
                time.sleep(0.01)
            return "stop"

        def close(self) -> None:
            pass

    monkeypatch.setattr(watch_module, "RustNotify", FailingTwice)
    monkeypatch.setattr(watch_module, "INOTIFY", False)  # watchfiles' watch (inotify's: test_inotify.py)
    monkeypatch.setattr(watch_module, "RESTART_MIN_S", 0.0)
    started_, ended = [], []
    both = asyncio.Event()

    async def resync() -> None:
        started_.append(1)
        if len(started_) == 2:
            both.set()
        try:
            await asyncio.Event().wait()  # a reconcile that takes its time
        finally:
            ended.append(1)

    async def apply(changes: Sequence[FileChange]) -> list[FileChange]:
        return []

    async def publish(changes: Sequence[FileChange]) -> None:
        return None

    watcher = watch_module.Watcher(VaultPaths(tmp_path), "v", apply, publish, resync=resync)
    await watcher.start()
    await asyncio.wait_for(both.wait(), WITHIN)
    await watcher.stop()
    assert (len(started_), len(ended), watcher.restarts) == (2, 2, 2)


async def test_the_watch_looks_often_only_for_a_while_after_an_event(
    tmp_path: Path,
) -> None:
    """Idle (from the start), the wait looks every `IDLE_STEP_MS` (the idle server's wake-ups); the
    wait after a batch of events looks every `STEP_MS` (an edit in a burst is seen 10-20 ms after
    it), until `IDLE_AFTER_S` have passed without one."""
    from service.indexer import watch as watch_module
    from service.vault.paths import VaultPaths

    steps: list[int] = []
    holding = asyncio.Event()
    loop = asyncio.get_running_loop()

    class Scripted:
        def __init__(self, *args: object) -> None:
            pass

        def watch(self, debounce_ms: int, step_ms: int, timeout_ms: int, stop: asyncio.Event) -> object:
            steps.append(step_ms)
            if len(steps) == 1:  # a start: no event yet
                return {(1, str(tmp_path / "New.md"))}
            if len(steps) == 2:  # then nothing came for longer than IDLE_AFTER_S
                watcher.last_event -= watch_module.IDLE_AFTER_S + 1
                return "timeout"
            loop.call_soon_threadsafe(holding.set)
            while not stop.is_set():
                time.sleep(0.01)
            return "stop"

        def close(self) -> None:
            pass

    async def apply(changes: Sequence[FileChange]) -> list[FileChange]:
        return []

    async def publish(changes: Sequence[FileChange]) -> None:
        return None

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(watch_module, "RustNotify", Scripted)
        patch.setattr(watch_module, "INOTIFY", False)  # watchfiles' polling wait (inotify's waits for the loop)
        watcher = watch_module.Watcher(VaultPaths(tmp_path), "v", apply, publish)
        await watcher.start()
        await asyncio.wait_for(holding.wait(), WITHIN)
        await watcher.stop()
    assert steps == [watch_module.IDLE_STEP_MS, watch_module.STEP_MS, watch_module.IDLE_STEP_MS]
