"""A folder move walks the folder (every file it moves, each with its ACL decisions) in a worker
thread: before, `files_under` ran on the event loop, so while a move of a huge folder was being
prepared (100,000 notes: a second or more) no other client was answered. Checked by ordering,
not time, over HTTP with the SDK client (as tests/e2e/test_prompts_off_loop_e2e.py): the walk of
the folder, once started, waits until another client's read_note has been answered, which can
only happen when the walk is off the loop (10 s at most: on the loop nothing else runs, and the
order then fails). A dry run and the move itself (validate_plan's check of it too) are each held."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.vault.files import VaultFiles
from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.e2e.test_prompts_off_loop_e2e import _meanwhile

FOLDER_MOVE = {"path": "Big", "new_path": "Archive/Big"}


def hold_walk(
    monkeypatch: pytest.MonkeyPatch, events: list[str], began: asyncio.Event, release: threading.Event
) -> None:
    """Make the walk of the folder `Big`, once started, wait for `release` (10 s at most) in the
    thread it runs in, noting its start and end in `events` and setting `began` on the loop."""
    loop = asyncio.get_running_loop()
    real_walk = VaultFiles.walk

    def walk(self: VaultFiles, folder: Any, *args: Any, **kwargs: Any) -> Any:
        if folder.rel == "Big" and not release.is_set():
            events.append("walk start")
            loop.call_soon_threadsafe(began.set)
            release.wait(10)
            events.append("walk end")
        return real_walk(self, folder, *args, **kwargs)

    monkeypatch.setattr(VaultFiles, "walk", walk)


@pytest.mark.parametrize("how", ["dry_run", "validate_plan"])
async def test_a_folder_move_walks_the_folder_off_the_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    files = {f"Big/Sub{i % 3}/n{i:03}.md": f"# N{i}\n" for i in range(60)}
    root = make_vault({**files, "Other.md": "# Other\n\nread meanwhile\n", "Links.md": "[[Big/Sub0/n000]]\n"})
    events: list[str] = []
    began, release = asyncio.Event(), threading.Event()
    real_walk = VaultFiles.walk

    async with e2e(root) as (url, vg), Client(url) as client:
        await vg.indexed()
        hold_walk(monkeypatch, events, began, release)
        if how == "dry_run":
            call = ok(client, "move_note", **FOLDER_MOVE, dry_run=True)
        else:
            plan = {"goal": "archive", "steps": [{"id": "m", "tool": "move_note", "args": FOLDER_MOVE}]}
            call = ok(client, "validate_plan", plan=plan)
        result = await _meanwhile(vg, call, began, release, events)
        monkeypatch.setattr(VaultFiles, "walk", real_walk)
    assert events == ["walk start", "other answered", "walk end"], events
    if how == "dry_run":  # the answer is whole: every file of the folder moves
        assert result["files_moved"] == 60 and result["notes_rewritten"] == 1, result
    else:
        [move] = result["effects"]["files_moved"]
        assert move["folder"] and len(move["moved_files"]) == 120, move
