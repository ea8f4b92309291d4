"""The watcher's inotify (`service.indexer.inotify`): what it reports, what it never wakes for,
the folders it watches as they come and go, and a watch lost mid-way (the watcher starts again
and re-reads the vault)."""

from __future__ import annotations

import asyncio
import os
import struct
from collections.abc import Sequence
from pathlib import Path

import pytest

from service.indexer import inotify, watch
from service.indexer.inotify import ADDED, DELETED, MODIFIED, Inotify, WatchLost
from service.vault.events import FileChange
from service.vault.paths import VaultPaths

pytestmark = pytest.mark.skipif(not inotify.available(), reason="inotify is Linux's")
WITHIN = 10.0


class Applied:
    """A `Watcher`'s `apply` and `publish` for tests: what reached `apply`, as `kind:path`, and
    `seen(entry)` waiting (bounded) until it did."""

    def __init__(self) -> None:
        self.applied: list[str] = []
        self.came = asyncio.Event()

    async def apply(self, changes: Sequence[FileChange]) -> list[FileChange]:
        self.applied.extend(f"{c.kind}:{c.path}" for c in changes)
        self.came.set()
        return list(changes)

    async def publish(self, changes: Sequence[FileChange]) -> None:
        return None

    async def seen(self, entry: str) -> None:
        while entry not in self.applied:
            await asyncio.wait_for(self.came.wait(), WITHIN)
            self.came.clear()


def _settled(watch_: Inotify) -> set[tuple[int, str]]:
    """Everything reported until a look finds nothing new (the kernel queues events at once),
    each path once with its last kind: a new file is created, then written (added, then
    modified), and the watcher reads every path it is told again anyway."""
    got: dict[str, int] = {}
    while more := _drained(watch_):
        for kind, path in sorted(more):
            got[path] = ADDED if got.get(path) == ADDED and kind == MODIFIED else kind
    return {(kind, path) for path, kind in got.items()}


def _drained(watch_: Inotify) -> set[tuple[int, str]]:
    """What came, then the folders below the folders that came watched, as the watcher does
    before it lists a batch (`Inotify.walked`)."""
    more = watch_.drain()
    asyncio.run(watch_.walked())
    return more


@pytest.fixture
def watched(tmp_path: Path) -> Inotify:
    (tmp_path / "Sub").mkdir()
    (tmp_path / "Sub" / "Old.md").write_text("old\n", encoding="utf-8")
    w = Inotify(str(tmp_path))
    w.open()
    yield w
    w.close()


def test_writes_creations_and_deletions_are_reported_and_reads_are_not(watched: Inotify, tmp_path: Path) -> None:
    note = tmp_path / "Sub" / "Old.md"
    for _ in range(5):  # what a read_note does to the file: open, read, close
        with open(note, "rb") as f:
            f.read()
        os.stat(note)
    assert _settled(watched) == set()  # notify 8 woke its thread for each of these
    (tmp_path / "New.md").write_text("new\n", encoding="utf-8")
    note.write_text("changed\n", encoding="utf-8")
    assert _settled(watched) == {(ADDED, str(tmp_path / "New.md")), (MODIFIED, str(note))}
    (tmp_path / "New.md").unlink()
    os.replace(note, tmp_path / "Moved.md")  # a rename: one name gone, one come
    assert _settled(watched) == {
        (DELETED, str(tmp_path / "New.md")),
        (DELETED, str(note)),
        (ADDED, str(tmp_path / "Moved.md")),
    }


def test_a_subfolder_made_reports_itself_and_a_folder_chmod_reports_the_folder(
    watched: Inotify, tmp_path: Path
) -> None:
    """As watchfiles reports them: a folder made is the only thing reported (its parent's link
    count moves without an event), and a folder's own attributes changed report the folder (its
    notes may have become readable: the watcher reads what is below it)."""
    (tmp_path / "Sub" / "Inner").mkdir()
    assert _settled(watched) == {(ADDED, str(tmp_path / "Sub" / "Inner"))}
    os.chmod(tmp_path / "Sub", 0o755)
    assert _settled(watched) == {(MODIFIED, str(tmp_path / "Sub"))}


def test_a_folder_made_while_watching_is_watched_with_what_is_below_it(watched: Inotify, tmp_path: Path) -> None:
    deep = tmp_path / "A" / "B"
    deep.mkdir(parents=True)  # B is made before A's watch may be in place: A's event stands for it
    (deep / "Early.md").write_text("early\n", encoding="utf-8")
    assert (ADDED, str(tmp_path / "A")) in _settled(watched)
    (deep / "Later.md").write_text("later\n", encoding="utf-8")
    assert _settled(watched) == {(ADDED, str(deep / "Later.md"))}


def test_a_folder_moved_away_is_forgotten_and_one_moved_in_is_watched(
    watched: Inotify, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    os.replace(tmp_path / "Sub", outside / "Sub")
    assert _settled(watched) == {(DELETED, str(tmp_path / "Sub"))}
    (outside / "Sub" / "Old.md").write_text("edited outside\n", encoding="utf-8")
    assert _settled(watched) == set()  # its old watch would report it under the vault's name
    (outside / "In").mkdir()
    os.replace(outside / "In", tmp_path / "In")
    assert _settled(watched) == {(ADDED, str(tmp_path / "In"))}
    (tmp_path / "In" / "Now.md").write_text("now\n", encoding="utf-8")
    assert _settled(watched) == {(ADDED, str(tmp_path / "In" / "Now.md"))}
    os.replace(tmp_path / "In", tmp_path / "Renamed")  # within the vault: under its new name from now on
    assert _settled(watched) == {(DELETED, str(tmp_path / "In")), (ADDED, str(tmp_path / "Renamed"))}
    (tmp_path / "Renamed" / "Now.md").write_text("again\n", encoding="utf-8")
    assert _settled(watched) == {(MODIFIED, str(tmp_path / "Renamed" / "Now.md"))}


def test_hidden_and_undecodable_folders_and_links_are_not_watched(tmp_path: Path) -> None:
    (tmp_path / ".obsidian").mkdir()
    bad = os.fsencode(tmp_path) + b"/Caf\xe9"
    os.mkdir(bad)
    (tmp_path / "Real").mkdir()
    (tmp_path / "Linked").symlink_to(tmp_path / "Real")
    w = Inotify(str(tmp_path))
    w.open()
    try:
        assert w.watches == 2  # the root and Real
        (tmp_path / ".obsidian" / "app.json").write_text("{}", encoding="utf-8")
        with open(bad + b"/x.md", "wb") as f:
            f.write(b"x")
        (tmp_path / "Real" / "R.md").write_text("r\n", encoding="utf-8")
        assert _settled(w) == {(ADDED, str(tmp_path / "Real" / "R.md"))}  # once: not again through the link
    finally:
        w.close()


def test_lost_events_and_a_deleted_root_end_the_watch(watched: Inotify, tmp_path: Path) -> None:
    overflow = struct.pack("iIII", -1, inotify.IN_Q_OVERFLOW, 0, 0)
    with pytest.raises(WatchLost, match="overflowed"):
        watched._parse(overflow, set())
    (tmp_path / "Sub" / "Old.md").unlink()
    (tmp_path / "Sub").rmdir()
    _settled(watched)
    tmp_path.rmdir()
    with pytest.raises(WatchLost):
        _settled(watched)


async def test_the_watcher_reports_edits_and_starts_again_after_a_lost_watch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through `Watcher`: an edit reaches `apply`, a watch that loses events is set up again and
    the vault re-read (`resync`), and edits after it are seen by the new watch."""
    assert watch.INOTIFY
    monkeypatch.setattr(watch, "RESTART_MIN_S", 0.0)
    got = Applied()
    resyncs: list[int] = []

    async def resync() -> None:
        resyncs.append(1)

    async def edited(name: str) -> None:
        got.came.clear()
        (tmp_path / name).write_text(f"{name}\n", encoding="utf-8")
        await got.seen(f"modified:{name}")

    watcher = watch.Watcher(VaultPaths(tmp_path), "v", got.apply, got.publish, resync=resync)
    await watcher.start()
    try:
        await asyncio.wait_for(watcher.established.wait(), WITHIN)
        await edited("One.md")
        real = Inotify.drain
        lost = [True]

        def losing(self: Inotify) -> set[tuple[int, str]]:
            if lost.pop() if lost else False:
                real(self)
                raise WatchLost("inotify's event queue overflowed: events were lost")
            return real(self)

        monkeypatch.setattr(Inotify, "drain", losing)
        (tmp_path / "Lost.md").write_text("lost\n", encoding="utf-8")
        for _ in range(int(WITHIN / 0.01)):
            if resyncs:
                break
            await asyncio.sleep(0.01)
        assert (watcher.restarts, resyncs) == (1, [1])
        await edited("Two.md")
    finally:
        await watcher.stop()


async def test_a_watcher_stopped_during_its_set_up_closes_the_watch_it_was_making(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The set-up runs in a worker thread that a stop cannot interrupt; the inotify descriptor it
    opened is closed when it ends, not left open until the process exits."""
    import threading

    entered, release = threading.Event(), threading.Event()
    made: list[Inotify] = []
    real_open = Inotify.open

    def held_open(self: Inotify) -> None:
        made.append(self)
        entered.set()
        assert release.wait(WITHIN)
        real_open(self)

    async def nothing(changes: Sequence[FileChange]) -> list[FileChange]:
        return []

    async def publish(changes: Sequence[FileChange]) -> None:
        return None

    monkeypatch.setattr(Inotify, "open", held_open)
    watcher = watch.Watcher(VaultPaths(tmp_path), "v", nothing, publish)
    await watcher.start()
    assert await asyncio.to_thread(entered.wait, WITHIN)
    await watcher.stop()
    assert made[0].fd >= 0  # still setting up
    release.set()
    for _ in range(int(WITHIN / 0.01)):
        if made[0].fd < 0:
            break
        await asyncio.sleep(0.01)
    assert made[0].fd == -1
