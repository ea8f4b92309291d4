"""A fresh server readies its first write in the background: once a vault's index is ready and
the calls pause, the warm-up reads the vault's note-name list and imports the notes tools, so the
first `create_note` finds both done; it never runs before the index is ready nor while a call
runs, and calls meanwhile answer as before."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.activity import Activity
from service.tools import query_warmup
from tests.conftest import started
from tests.tools.test_query_warmup import _until

VAULT = {
    "Projects/Launch plan.md": "---\naliases: [Rocket]\n---\n# Launch plan\n\nGoals.\n",
    "Daily/2026-01-01.md": "# Day\n\nSee [[Rocket]].\n",
    "Inbox/Idea.md": "# Idea\n\nA thought.\n",
}


async def test_the_names_and_the_notes_tools_are_ready_before_the_first_write(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    ready_when_read: list[bool] = []
    loader = query_warmup.note_name_loader
    first_write = query_warmup.QueryWarmup._first_write
    warming: list[Any] = []  # the indexer the warm-up was given (it may run before `started` yields)

    async def remembered(self: query_warmup.QueryWarmup, vault: Any, indexer: Any) -> None:
        warming.append(indexer)
        await first_write(self, vault, indexer)

    def watched(db: Any, vault_id: str) -> Any:
        ready_when_read.append(warming[-1].ready)
        return loader(db, vault_id)

    monkeypatch.setattr(query_warmup.QueryWarmup, "_first_write", remembered)
    monkeypatch.setattr(query_warmup, "note_name_loader", watched)
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        indexer = vg.indexer()
        await _until(lambda: vg.app.warmup.names_warmed == 1)
        assert ready_when_read == [True]
        assert indexer.names.full_reads == 1
        assert "notes" in vg.app.registry.loaded_parts()

        created = await vg.ok("create_note", path="Inbox/Second idea", content="# Second\n\nBuilds on [[Rocket]].\n")
        assert created["path"] == "Inbox/Second idea.md"
        assert indexer.names.full_reads == 1  # the write used the list read ahead, patched since
        found = await vg.ok("read_note", path="Rocket")  # an alias: resolved against the list
        assert found["path"] == "Projects/Launch plan.md"
        await vg.settled()
        again = await vg.ok("read_note", path="second idea")
        assert again["path"] == "Inbox/Second idea.md"


async def test_the_warm_up_waits_for_the_calls_to_pause_and_does_not_hold_them(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    born = Activity.__init__

    def busy_from_birth(self: Activity, *args: Any, **kwargs: Any) -> None:
        born(self, *args, **kwargs)
        self.begin()  # a call that runs on and on, from before the warm-up can start

    monkeypatch.setattr(Activity, "__init__", busy_from_birth)
    async with started(make_vault(VAULT)) as vg:
        activity = vg.app.activity
        await vg.indexed()
        indexer = vg.indexer()
        for _ in range(50):  # the warm-up task gets every chance to run
            await asyncio.sleep(0)
        assert vg.app.warmup.names_warmed == 0 and indexer.names.full_reads == 0
        assert "notes" not in vg.app.registry.loaded_parts()
        found = await asyncio.wait_for(vg.ok("search_text", query="thought"), 60)  # answered meanwhile
        assert [item["path"] for item in found["items"]] == ["Inbox/Idea.md"]
        assert vg.app.warmup.names_warmed == 0
        activity.end()
        await _until(lambda: vg.app.warmup.names_warmed == 1)
        assert indexer.names.full_reads == 1 and "notes" in vg.app.registry.loaded_parts()
