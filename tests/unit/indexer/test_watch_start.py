"""On a warm restart the file watcher starts after the first reconcile, its setup in a worker
thread: calls are answered while it is set up, and what changes on disk before the watch is in
place (after the first reconcile read the vault, before the watch sees anything) still reaches
the index through the rescan that follows the setup. On a first start (empty index) the watch is
set up before the one reconcile, which reads what changed meanwhile. `wait_ready` returns only
after both.

The setup is made to wait on an event here (a stand-in for the walk of a large vault); every
wait is bounded."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.indexer import watch
from tests.conftest import Harness, started

WITHIN = 60.0
FILES = {"Kept.md": "# Kept\n\nkeptword\n", "Edited.md": "# Edited\n\noldword\n", "Gone.md": "# Gone\n\ngoneword\n"}


class HeldSetup:
    """The watch (inotify's or watchfiles' `RustNotify`, whichever the watcher uses here) whose
    construction (in the watcher's worker thread) first runs `before`, then waits for `release`."""

    def __init__(self, before: Callable[[], None] = lambda: None) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.before = before
        self.real: Any = watch.Inotify if watch.INOTIFY else watch.rust_notify()
        self.name = "Inotify" if watch.INOTIFY else "RustNotify"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.before()
        self.entered.set()
        assert self.release.wait(WITHIN)
        return self.real(*args, **kwargs)


async def _indexed_once(root: Path) -> None:
    async with started(root) as vg:
        await vg.indexed(WITHIN)


def _edit(root: Path) -> None:
    (root / "Edited.md").write_text("# Edited\n\nnewword and more\n", encoding="utf-8")
    (root / "Gone.md").unlink()
    (root / "New").mkdir()
    (root / "New" / "Fresh.md").write_text("# Fresh\n\nfreshword\n", encoding="utf-8")


async def _found(vg: Harness, word: str) -> list[str]:
    return [i["path"] for i in (await vg.ok("search_text", query=word))["items"]]


async def test_calls_are_answered_while_the_watcher_is_set_up(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault(FILES)
    await _indexed_once(root)
    held = HeldSetup()
    monkeypatch.setattr(watch, held.name, held)
    async with started(root) as vg:
        assert await asyncio.to_thread(held.entered.wait, WITHIN)  # the first reconcile is done
        indexer = vg.indexer("main")
        assert indexer.ready and not indexer._ready.is_set()
        assert await _found(vg, "keptword") == ["Kept.md"]  # answered while the setup holds
        held.release.set()
        await vg.indexed(WITHIN)
        assert indexer.watching


@pytest.mark.parametrize("warm", [True, False], ids=["warm-restart", "first-start"])
async def test_edits_made_before_the_watch_is_in_place_are_indexed(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, warm: bool
) -> None:
    root = make_vault(FILES)
    if warm:
        await _indexed_once(root)
    held = HeldSetup(lambda: _edit(root))  # before any watch exists (after the first reconcile when warm)
    held.release.set()
    monkeypatch.setattr(watch, held.name, held)
    async with started(root) as vg:
        await vg.indexed(WITHIN)
        assert held.entered.is_set()
        assert await _found(vg, "newword") == ["Edited.md"]
        assert await _found(vg, "oldword") == []
        assert await _found(vg, "goneword") == []
        assert await _found(vg, "freshword") == ["New/Fresh.md"]
        # and the watch is in place now: a later edit arrives through it
        (root / "Later.md").write_text("# Later\n\nlaterword\n", encoding="utf-8")
        indexer = vg.indexer("main")

        async def later_indexed() -> None:
            while "Later.md" not in indexer.files():  # noqa: ASYNC110 - bounded by wait_for below
                await indexer.wait_for(lambda g=indexer.generation: indexer.generation > g, within=WITHIN)

        await asyncio.wait_for(later_indexed(), WITHIN)
        assert await _found(vg, "laterword") == ["Later.md"]


async def test_a_first_start_sets_the_watch_up_before_it_reads_the_vault(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    held = HeldSetup()
    monkeypatch.setattr(watch, held.name, held)
    async with started(make_vault(FILES)) as vg:
        assert await asyncio.to_thread(held.entered.wait, WITHIN)
        assert vg.indexer("main").state == "starting"  # the reconcile waits for the watch
        held.release.set()
        await vg.indexed(WITHIN)
        assert await _found(vg, "keptword") == ["Kept.md"]
