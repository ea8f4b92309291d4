"""Polling in place of the OS's events (`service.indexer.watch_poll`): `[index] watch_mode = "poll"`
(network file systems), and the fallback when the OS's watch limit is reached — through the app
and the dispatch chain: what another program writes, changes, deletes or adds beside the notes
is found, told to subscribers as external, our own writes are not read twice, and events come
back once the limit allows."""

from __future__ import annotations

import asyncio
import errno
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from service.indexer import inotify, watch, watch_poll
from service.indexer.inotify import Inotify
from service.vault.events import FileChange
from tests.conftest import Harness, started
from tests.polling import until

POLLING = {"watch_mode": "poll", "watch_poll_s": 1.0}


def _vault(root: Path) -> Path:
    (root / "Notes").mkdir(parents=True)
    (root / "Notes" / "Kept.md").write_text("# Kept\n\nplainword here\n", encoding="utf-8")
    (root / "Notes" / "Gone.md").write_text("# Gone\n\nvanishingword\n", encoding="utf-8")
    (root / "Notes" / "Shows.md").write_text("# Shows\n\n![[pic.png]]\n", encoding="utf-8")
    return root


async def _found(vg: Harness, query: str) -> list[str]:
    out = await vg.ok("search_text", query=query)
    return [item["path"] for item in out["items"]]


async def _until(vg: Harness, query: str, expect: list[str]) -> None:
    """Search `query` until it answers `expect` (bounded)."""

    async def answered() -> bool:
        return await _found(vg, query) == expect

    await until(answered, f"search_text {query!r} answering {expect}", pause=0.1)


async def _resolved(vg: Harness, note: str) -> list[tuple[str, bool]]:
    out = await vg.ok("get_outlinks", path=note)
    return [(link["path"], link["resolved"]) for link in out["items"]]


def test_the_limits_are_known_by_their_errors() -> None:
    assert watch_poll.at_limit(OSError(errno.ENOSPC, "inotify_add_watch: No space left on device"))
    assert watch_poll.at_limit(OSError(errno.EMFILE, "inotify_init1: Too many open files"))
    assert watch_poll.at_limit(OSError("OS file watch limit reached. about [...]"))  # watchfiles
    assert not watch_poll.at_limit(OSError(errno.EACCES, "Permission denied"))
    assert not watch_poll.at_limit(ValueError("watch limit"))


async def test_a_look_that_takes_long_makes_the_pause_after_it_longer(monkeypatch: pytest.MonkeyPatch) -> None:
    """A look of 1 s of CPU is followed by a pause of at least 20 s, whatever `every_s` says
    (polling stays under ~5 % of a core); `for_s` ends the polling before a look that would begin
    past it, and `stop` ends it at once."""
    clock = [0.0]
    looks: list[float] = []
    monkeypatch.setattr(watch_poll.time, "monotonic", lambda: clock[0])

    async def drift() -> tuple[list[str], float]:
        looks.append(clock[0])
        clock[0] += 0.1  # the look's wall time counts for nothing: its CPU time does
        return [], 1.0

    async def handle(raw: set[tuple[int, str]]) -> None:
        raise AssertionError("nothing differs")

    stop = asyncio.Event()
    assert await watch_poll.poll(drift, handle, 0.01, stop, "/v/", for_s=5.0) is False
    assert looks == [0.0]  # 20 s of pause after 1 s of CPU > 5 s: no second look
    stop.set()
    assert await watch_poll.poll(drift, handle, 0.01, stop, "/v/") is True


async def test_a_polled_vault_finds_what_another_program_did(tmp_path: Path) -> None:
    root = _vault(tmp_path / "v")
    async with started(root, index=POLLING) as vg:
        await vg.indexed()
        status = await vg.ok("index_status")
        assert (status["watching"], status["polling"]) == (True, "watch_mode")
        told: list[tuple[str, str, str]] = []

        async def listen(changes: Sequence[FileChange]) -> None:
            told.extend((c.kind, c.path, c.origin) for c in changes)

        next(iter(vg.app.vaults.values())).bus.subscribe(listen)
        assert await _resolved(vg, "Notes/Shows.md") == [("pic.png", False)]
        (root / "Notes" / "New.md").write_text("# New\n\nfreshword\n", encoding="utf-8")
        (root / "Notes" / "Kept.md").write_text("# Kept\n\nchangedword now\n", encoding="utf-8")
        (root / "Notes" / "Gone.md").unlink()
        (root / "Notes" / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
        await _until(vg, "freshword", ["Notes/New.md"])
        await _until(vg, "changedword", ["Notes/Kept.md"])
        await _until(vg, "vanishingword", [])
        assert await _found(vg, "plainword") == []
        assert await _resolved(vg, "Notes/Shows.md") == [("Notes/pic.png", True)]
        assert {(p, o) for _, p, o in told} >= {
            ("Notes/New.md", "external"),
            ("Notes/Kept.md", "external"),
            ("Notes/Gone.md", "external"),
        }
        assert ("deleted", "Notes/Gone.md", "external") in told
        # A folder renamed by another program (its notes and the attachment go with it).
        (root / "Notes").rename(root / "Moved")
        await _until(vg, "freshword", ["Moved/New.md"])
        await _until(vg, "changedword", ["Moved/Kept.md"])
        assert await _resolved(vg, "Moved/Shows.md") == [("Moved/pic.png", True)]
        listed = await vg.ok("list_notes")
        assert sorted(item["path"] for item in listed["items"]) == ["Moved/Kept.md", "Moved/New.md", "Moved/Shows.md"]


async def test_our_own_writes_are_not_read_again_by_polling(tmp_path: Path) -> None:
    root = _vault(tmp_path / "v")
    async with started(root, index=POLLING) as vg:
        await vg.indexed()
        watcher = vg.indexer()._watcher
        assert watcher is not None and watcher.drift is not None
        applied: list[str] = []
        real = watcher.apply

        async def spy(changes: Sequence[FileChange]) -> list[FileChange]:
            applied.extend(c.path for c in changes)
            return await real(changes)

        watcher.apply = spy
        await vg.ok("create_note", path="Notes/Ours.md", content="ourword\n")
        await vg.ok("append_note", path="Notes/Kept.md", content="more of ours\n")
        await vg.settled()
        assert (await watcher.drift())[0] == []  # the index holds the files as our writes left them
        await asyncio.sleep(2.5)  # two looks at least
        assert applied == []
        assert await _found(vg, "ourword") == ["Notes/Ours.md"]


@pytest.mark.skipif(not inotify.available(), reason="inotify is Linux's")
async def test_the_watch_limit_turns_to_polling_and_events_come_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """inotify_add_watch failing with ENOSPC (the user's `max_user_watches` reached) no longer
    leaves the vault unwatched, retried every 5 s with a traceback: the vault is polled, said once
    in the log and in index_status, and the watch is tried again (here every 2 s); once a watch
    fits, events come back."""
    root = _vault(tmp_path / "v")
    monkeypatch.setattr(watch, "RETRY_EVENTS_S", 2.0)
    real_add = Inotify._add
    full = [True]

    def add(self: Inotify, path: bytes) -> int:
        if full[0]:
            raise OSError(errno.ENOSPC, "inotify_add_watch: No space left on device", path.decode())
        return real_add(self, path)

    monkeypatch.setattr(Inotify, "_add", add)
    caplog.set_level(logging.WARNING, logger="service.indexer.watch")
    async with started(root, index={"watch_poll_s": 1.0}) as vg:
        await vg.indexed()
        status = await vg.ok("index_status")
        assert status["polling"].startswith("the OS's watch limit: [Errno 28]")
        (root / "Notes" / "Polled.md").write_text("polledword\n", encoding="utf-8")
        await _until(vg, "polledword", ["Notes/Polled.md"])
        watcher = vg.indexer()._watcher
        assert watcher is not None
        await until(lambda: watcher.restarts >= 2, "a retry of the watch that fails again", pause=0.1)
        told = [r for r in caplog.records if "cannot watch every folder" in r.getMessage()]
        assert len(told) == 1 and "max_user_watches" in told[0].getMessage()
        assert not [r for r in caplog.records if r.exc_info]  # no traceback per retry
        full[0] = False
        await until(lambda: watcher.polling is None, "the watch in place again", pause=0.1)
        assert (await vg.ok("index_status"))["polling"] is None
        before = watcher.last_event
        (root / "Notes" / "Evented.md").write_text("eventword\n", encoding="utf-8")
        await _until(vg, "eventword", ["Notes/Evented.md"])
        assert watcher.last_event > before  # reported by inotify, not found by a look


async def test_no_look_compares_with_a_half_built_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a first start the watch is in place before the first reading of the vault. A look then
    would find every note missing from the half-built index and have the watcher read each one
    again after the load (100k notes: a second load): looks find nothing until the index is ready."""
    from service.indexer import runner

    root = _vault(tmp_path / "v")
    for i in range(40):
        (root / "Notes" / f"n{i}.md").write_text(f"# n{i}\n\nbody {i}\n", encoding="utf-8")
    gate = asyncio.Event()
    real_reconcile, real_drift = runner.reconcile_vault, runner.drift
    looks: list[list[str]] = []

    async def held(*args: Any, **kwargs: Any) -> dict[str, int]:
        await gate.wait()
        return await real_reconcile(*args, **kwargs)

    async def counted(ix: Any) -> tuple[list[str], float]:
        found = await real_drift(ix)
        looks.append(found[0])
        return found

    monkeypatch.setattr(runner, "reconcile_vault", held)
    monkeypatch.setattr(runner, "drift", counted)
    async with started(root, index=POLLING) as vg:
        await until(lambda: len(looks) >= 2, "two looks while the first reading waits", pause=0.1)
        assert vg.indexer().state != "ready"
        gate.set()
        await vg.indexed()
        seen = len(looks)
        await until(lambda: len(looks) >= seen + 2, "two looks after the first reading", pause=0.1)
        assert looks == [[]] * len(looks)


@pytest.mark.skipif(not inotify.available(), reason="inotify is Linux's")
@pytest.mark.parametrize("mode", ["limit", "poll"])
async def test_a_failing_look_is_tried_again_after_the_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    """A look that fails (here the process out of file descriptors, EMFILE, which also names
    inotify's instance limit) neither ends the watcher nor spins nor counts as the OS's limit: it
    is tried again after the pause, said once in the log, and edits are found once looks work."""
    from service.indexer import runner

    root = _vault(tmp_path / "v")
    real_drift = runner.drift
    looks: list[str] = []

    def add(self: Inotify, path: bytes) -> int:
        raise OSError(errno.ENOSPC, "inotify_add_watch: No space left on device", path.decode())

    async def failing(ix: Any) -> tuple[list[str], float]:
        if ix.state == "ready" and looks.count("failed") < 3:
            looks.append("failed")
            raise OSError(errno.EMFILE, "Too many open files")
        looks.append("looked")
        return await real_drift(ix)

    if mode == "limit":
        monkeypatch.setattr(Inotify, "_add", add)
    monkeypatch.setattr(runner, "drift", failing)
    caplog.set_level(logging.WARNING, logger="service.indexer.watch_poll")
    index = {"watch_poll_s": 1.0} if mode == "limit" else POLLING
    async with started(root, index=index) as vg:
        await vg.indexed()
        (root / "Notes" / "After.md").write_text("afterword\n", encoding="utf-8")
        await _until(vg, "afterword", ["Notes/After.md"])
        watcher = vg.indexer()._watcher
        assert watcher is not None and watcher._task is not None and not watcher._task.done()
        assert looks.count("failed") == 3 and watcher.restarts == (1 if mode == "limit" else 0)
        assert (watcher.polling or "").startswith("watch_mode" if mode == "poll" else "the OS's watch limit")
        told = [r for r in caplog.records if r.name == "service.indexer.watch_poll"]
        assert len(told) == 1 and "Too many open files" in told[0].getMessage()


async def test_the_polling_gauge_says_which_vault_is_polled(tmp_path: Path) -> None:
    from service.obs.metrics import Metrics

    async with started(_vault(tmp_path / "polled"), index=POLLING) as vg:
        await vg.indexed()
        await vg.app.refresh_gauges()
        metrics: Metrics = vg.app.services.metrics
        assert metrics.registry.get_sample_value("vaultgate_index_watch_polling", {"vault": "main"}) == 1
    async with started(_vault(tmp_path / "evented")) as vg:
        await vg.indexed()
        await vg.app.refresh_gauges()
        metrics = vg.app.services.metrics
        assert metrics.registry.get_sample_value("vaultgate_index_watch_polling", {"vault": "main"}) == 0


async def test_a_folder_a_look_cannot_list_is_not_taken_for_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What polling is for, network shares, fail in ways events never show: a folder that cannot
    be listed (a stale handle, a permission), the share not mounted (its folder empty). Before,
    a look took every note there for deleted, and the next one read them all again (100k notes:
    the index empty for a minute, then a whole load). Now what the index holds below a folder
    that could not be listed stays, and a look at a root that cannot be listed, or lists nothing
    while the index holds files, fails and is tried again."""
    import os

    from service.indexer.reconcile import drift

    root = _vault(tmp_path / "v")
    (root / "Other").mkdir()
    (root / "Other" / "Far.md").write_text("# Far\n\nfarword\n", encoding="utf-8")
    real_scandir = os.scandir
    failing: set[str] = set()

    def scandir(path: Any = ".") -> Any:
        if os.fspath(path) in failing:
            raise OSError(errno.ESTALE, "Stale file handle", os.fspath(path))
        return real_scandir(path)

    async with started(root, index=POLLING) as vg:
        await vg.indexed()
        ix = vg.indexer()
        monkeypatch.setattr(os, "scandir", scandir)
        failing.add(str(root / "Notes"))
        (root / "Other" / "Near.md").write_text("# Near\n\nnearword\n", encoding="utf-8")
        assert (await drift(ix))[0] == ["Other/Near.md"]  # nothing below Notes/ counted as gone
        await _until(vg, "nearword", ["Other/Near.md"])
        assert await _found(vg, "plainword") == ["Notes/Kept.md"]
        failing.add(str(root))
        with pytest.raises(OSError, match="Stale file handle"):
            await drift(ix)
        failing.clear()
        monkeypatch.setattr(os, "scandir", real_scandir)
        away = tmp_path / "away"
        away.mkdir()
        for child in list(root.iterdir()):
            if not child.name.startswith("."):
                child.rename(away / child.name)
        with pytest.raises(FileNotFoundError, match="lists nothing"):
            await drift(ix)
        await asyncio.sleep(1.5)  # a look at least: it fails, the index stays (a search would drop what it
        assert (await vg.ok("index_status"))["notes"] == 5  # finds gone from disk: read_fresh, not the watcher)
        for child in list(away.iterdir()):
            child.rename(root / child.name)
        assert (await drift(ix))[0] == []


@pytest.mark.skipif(not inotify.available(), reason="inotify is Linux's")
async def test_the_limit_reached_while_watching_turns_to_polling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder made while watching needs a watch of its own: when none is left, the watch ends
    and polling finds what is in that folder (and what comes after)."""
    root = _vault(tmp_path / "v")
    async with started(root, index={"watch_poll_s": 1.0}) as vg:
        await vg.indexed()
        watcher = vg.indexer()._watcher
        assert watcher is not None and watcher.polling is None

        def add(self: Inotify, path: bytes) -> int:
            raise OSError(errno.ENOSPC, "inotify_add_watch: No space left on device", path.decode())

        monkeypatch.setattr(Inotify, "_add", add)
        (root / "New folder").mkdir()
        (root / "New folder" / "Inside.md").write_text("insideword\n", encoding="utf-8")
        await _until(vg, "insideword", ["New folder/Inside.md"])
        assert (watcher.polling or "").startswith("the OS's watch limit")
        (root / "Later.md").write_text("laterword\n", encoding="utf-8")
        await _until(vg, "laterword", ["Later.md"])
