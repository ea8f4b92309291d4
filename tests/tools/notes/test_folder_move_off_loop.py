"""A folder move walks the folder off the event loop, through the dispatch chain (over HTTP:
tests/e2e/test_folder_move_off_loop_e2e.py): the walk, once started, waits until another call's
read_note has been answered, which can only happen when the walk is off the loop (10 s at most:
on the loop the order fails). Then the move itself runs, confirmed, and moves every file."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from service.vault.files import VaultFiles
from tests.conftest import started
from tests.e2e.test_folder_move_off_loop_e2e import hold_walk
from tests.e2e.test_prompts_off_loop_e2e import _meanwhile


async def test_a_folder_move_is_prepared_off_the_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {f"Big/Sub{i % 3}/n{i:03}.md": f"# N{i}\n" for i in range(60)}
    root = make_vault({**files, "Other.md": "# Other\n\nread meanwhile\n"})
    events: list[str] = []
    began, release = asyncio.Event(), threading.Event()
    real_walk = VaultFiles.walk
    async with started(root) as vg:
        await vg.indexed()
        hold_walk(monkeypatch, events, began, release)
        token = await _meanwhile(
            vg, vg.token_for("move_note", path="Big", new_path="Archive/Big"), began, release, events
        )
        monkeypatch.setattr(VaultFiles, "walk", real_walk)
        assert events == ["walk start", "other answered", "walk end"], events
        moved = await vg.ok("move_note", path="Big", new_path="Archive/Big", elicit_token=token)
        assert moved["files_moved"] == 60 and not (root / "Big").exists()
        assert len(list((root / "Archive/Big").rglob("*.md"))) == 60


async def test_a_folder_moves_targets_are_checked_off_the_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each moved file's new path is resolved and stat'ed (a 2,612-file folder: ~0.4 s a plan,
    once per preview page): that check, once started, waits until another call's read_note has
    been answered, which only a check off the event loop lets happen (10 s at most)."""
    from service.graph import moves as graph_moves

    files = {f"Big/n{i:03}.md": f"# N{i}\n" for i in range(30)}
    root = make_vault({**files, "Other.md": "# Other\n\nread meanwhile\n"})
    events: list[str] = []
    began, release = asyncio.Event(), threading.Event()
    real_check = graph_moves.check_targets
    loop = asyncio.get_running_loop()

    def check(*args: object, **kwargs: object) -> None:
        if not release.is_set():
            events.append("check start")
            loop.call_soon_threadsafe(began.set)
            release.wait(10)
            events.append("check end")
        real_check(*args, **kwargs)  # type: ignore[arg-type]

    async with started(root) as vg:
        await vg.indexed()
        monkeypatch.setattr(graph_moves, "check_targets", check)
        preview = await _meanwhile(
            vg, vg.ok("move_note", path="Big", new_path="Archive/Big", dry_run=True), began, release, events
        )
    assert events == ["check start", "other answered", "check end"], events
    assert preview["files_moved"] == 30
