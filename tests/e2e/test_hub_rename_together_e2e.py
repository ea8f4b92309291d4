"""E2E (SDK client over real HTTP, a human approving through its client): the rename of a hub note
linked from 200 notes writes its link rewrites several at once (`service.vault.commit.Together`),
rewrites every link, and undo_last_plan puts every byte of the vault back.

That the writes overlap is seen, not timed: the first two rewrites each wait in their atomic write
(bounded) until the other is in its own; written one after the other, the first would wait in
vain and the rename would fail. The server runs in this process, so the wait is set on its
writer (`service.vault.files.write_in`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.vault import files
from tests.conftest import e2e, snapshot
from tests.e2e.calls import ok
from tests.e2e.test_bridge_confirm_e2e import answering
from tests.long_changes import HUB_NOTES, hub_files


def _first_two_meet(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The first two note rewrites wait (at most 60 s) until both are in their write; returns them."""
    write, met = files.write_in, threading.Barrier(2, timeout=60)
    lock, first = threading.Lock(), list[str]()

    def meeting(folder_fd: int, name: str, data: bytes, *, rel: str, **more: Any) -> Any:
        with lock:
            waits = rel.startswith("Notes/") and len(first) < 2
            if waits:
                first.append(rel)
        if waits:
            met.wait()  # BrokenBarrierError (the write fails) when no other write comes
        return write(folder_fd, name, data, rel=rel, **more)

    monkeypatch.setattr(files, "write_in", meeting)
    return first


async def test_a_hub_rename_writes_its_rewrites_together_and_undoes_every_byte(
    make_vault: Callable[..., Path], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault(hub_files())
    before = snapshot(root)
    asked: list[str] = []
    async with (
        e2e(root) as (url, harness),
        Client(url, mode=mode, elicitation_callback=answering("accept", asked)) as client,  # type: ignore[arg-type]
    ):
        await harness.indexed()
        first = _first_two_meet(monkeypatch)
        out = await ok(client, "rename_note", path="Hub", new_path="Centre")
        assert len(first) == 2, first
        assert (out["files_moved"], out["notes_rewritten"]) == (1, HUB_NOTES), out
        assert not (root / "Hub.md").exists() and (root / "Centre.md").read_bytes() == before["Hub.md"]
        for i in range(HUB_NOTES):
            text = (root / f"Notes/n{i:03}.md").read_text(encoding="utf-8")
            assert text == f"# Note {i}\n\nSee [[Centre]] and [[Centre#Part|part]]. #topic\n", text
        undone = await ok(client, "undo_last_plan")
        assert undone["conflicts"] == [] and asked, undone  # a human approved the undo
        assert snapshot(root) == before
