"""The watcher and a multi-file change of ours (a move's link rewrites, held by `ChangeBus.batch`
until the change ends): the events of its writes are dropped as they come, so the index parses
each rewritten note once (the change's own update), nothing is re-published as "external", and an
edit another program makes to such a note while the change runs still reaches the index.

The change is held open at its end (its batch wrapped) until a later external write has been
published by the watcher: then the watcher has handled every event of the change's writes while
the change still held them, whatever the machine's speed. Every wait is bounded."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path

import pytest

from service.vault.events import ChangeBus, FileChange
from tests.conftest import Harness, started
from tests.unit.indexer.recorder import Recorder, parses

NOTES = 12


def _vault() -> dict[str, str]:
    return {"Hub.md": "# Hub\n", **{f"Notes/n{i}.md": f"# n{i}\n\nSee [[Hub]].\n" for i in range(NOTES)}}


def _hold_open(bus: ChangeBus, monkeypatch: pytest.MonkeyPatch, before_end: Callable[[], Awaitable[None]]) -> None:
    """Run `before_end` inside the next batch of `bus`, after its last write, before it is delivered."""
    batch = bus.batch

    @contextlib.asynccontextmanager
    async def held() -> AsyncIterator[None]:
        async with batch():
            yield
            await before_end()

    monkeypatch.setattr(bus, "batch", held)


async def _barrier(vg: Harness, recorder: Recorder, name: str) -> None:
    """A later external write, published: every event before it has been handled by the watcher."""
    (vg.root / name).write_text("# s\n", encoding="utf-8")
    await recorder.until(lambda c: c.path == name and c.origin == "external")


@pytest.fixture
async def hub(make_vault: Callable[..., Path]) -> AsyncIterator[tuple[Harness, Recorder]]:
    async with started(make_vault(_vault())) as vg:
        await vg.indexed()
        recorder = Recorder()
        vg.app.vaults["main"].bus.subscribe(recorder)
        yield vg, recorder


async def test_a_moves_rewrites_are_parsed_once_and_never_told_as_external(
    hub: tuple[Harness, Recorder], monkeypatch: pytest.MonkeyPatch
) -> None:
    vg, recorder = hub
    parsed = parses(monkeypatch)
    watcher = vg.indexer("main")._watcher
    assert watcher is not None
    _hold_open(vg.app.vaults["main"].bus, monkeypatch, lambda: _barrier(vg, recorder, "During.md"))
    done = await vg.ok("rename_note", path="Hub.md", new_path="Hub2")
    assert done["notes_rewritten"] == NOTES
    await _barrier(vg, recorder, "After.md")
    rewritten = {f"Notes/n{i}.md" for i in range(NOTES)}
    assert not [c for c in recorder.seen if c.path in rewritten and c.origin == "external"]
    assert sorted(p for p in parsed if p in rewritten) == sorted(rewritten)  # once each, by the change's update
    assert watcher.dropped >= NOTES
    found = await vg.ok("search_text", query="Hub2")
    assert {i["path"] for i in found["items"]} >= rewritten


async def test_an_edit_elsewhere_while_the_move_runs_reaches_the_index(
    hub: tuple[Harness, Recorder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program saves a rewritten note (a temp file renamed over it, as editors do: the
    same event as the move's own write) after the move wrote it and before the move ended: the
    watcher drops the event, and the move's update reads the note as the other program left it."""
    vg, recorder = hub
    edited = vg.root / "Notes" / "n3.md"

    async def edit_then_wait() -> None:
        temp = edited.with_name(".n3.md.swp")
        temp.write_text("# n3\n\nSaved elsewhere, zanzibar. [[Hub2]]\n", encoding="utf-8")
        os.replace(temp, edited)
        await _barrier(vg, recorder, "During.md")  # its event handled (dropped) while the move runs

    _hold_open(vg.app.vaults["main"].bus, monkeypatch, edit_then_wait)
    await vg.ok("rename_note", path="Hub.md", new_path="Hub2")
    found = await vg.ok("search_text", query="zanzibar")
    assert [i["path"] for i in found["items"]] == ["Notes/n3.md"]
    assert "zanzibar" in edited.read_text(encoding="utf-8")  # the move never wrote over it


async def test_a_note_deleted_elsewhere_while_the_move_runs_is_told_and_dropped(
    hub: tuple[Harness, Recorder], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program deletes a rewritten note while the move runs: its deletion is not one of the
    move's events, so the watcher applies it and subscribers hear that the note went."""
    vg, recorder = hub

    async def delete_then_wait() -> None:
        (vg.root / "Notes" / "n5.md").unlink()
        await _barrier(vg, recorder, "During.md")

    _hold_open(vg.app.vaults["main"].bus, monkeypatch, delete_then_wait)
    await vg.ok("rename_note", path="Hub.md", new_path="Hub2")
    assert FileChange("deleted", "Notes/n5.md", origin="external") in recorder.seen
    rows_left = await vg.app.services.db.fetchall("SELECT path FROM notes WHERE path = ?", ("Notes/n5.md",))
    assert rows_left == []


async def test_a_batch_holds_a_path_until_delivered_and_not_once_deleted() -> None:
    bus = ChangeBus()
    heard: list[bool] = []

    async def listener(changes: Sequence[FileChange]) -> None:
        heard.append(bus.holds("a.md"))  # still held while the listeners hear of it

    bus.subscribe(listener)
    async with bus.batch():
        assert not bus.holds("a.md")
        await bus.publish([FileChange("modified", "a.md")])
        assert bus.holds("a.md")
        await asyncio.create_task(bus.publish([FileChange("created", "b.md")]))  # a task of the batch
        assert bus.holds("b.md")
        await bus.publish([FileChange("moved", "c.md", old_path="b.md")])
        assert not bus.holds("b.md") and bus.holds("c.md")
        await bus.publish([FileChange("deleted", "c.md")])
        assert not bus.holds("c.md")
    assert heard == [True] and not bus.holds("a.md")
