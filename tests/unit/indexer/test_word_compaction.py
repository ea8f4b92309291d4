"""The word index is merged into one segment after a reconcile when it holds more than a few, in
the background, once calls pause; searches answer the same from the merged index (rankings,
scores, snippets and highlights)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.storage.word_index import MAX_SEGMENTS, compact_words, word_segments
from tests.conftest import Harness, started
from tests.search_vault import SEARCH_VAULT

QUERIES = ("rocket", "garden", "rocket launch", '"orbital mechanics"', "launch*", "tomatoes OR fuel", "quiet soil")


async def _answers(vg: Harness) -> list[dict[str, Any]]:
    return [await vg.ok("search_text", query=q, limit=5) for q in QUERIES]


async def _merged(vg: Harness) -> None:
    """After the merge the start's reconcile asked for (if any) is done."""
    job = vg.indexer().word_merge
    assert job.task is not None
    await job.settled()


async def _fragment(vg: Harness) -> int:
    """One segment per note: merges off, each note's text rewritten in a transaction of its own."""
    await _merged(vg)
    db = vg.app.services.db
    await db.run_write(lambda c: c.execute("INSERT INTO fts_words(fts_words, rank) VALUES ('automerge', 0)"))
    for (note_id,) in await db.fetchall("SELECT note_id FROM note_text"):
        await db.run_write(lambda c, n=note_id: c.execute("UPDATE note_text SET body = body WHERE note_id = ?", (n,)))
    return int(await db.run_read(word_segments))


async def test_a_fragmented_word_index_is_merged_after_the_start_and_answers_the_same(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(SEARCH_VAULT)
    async with started(root) as vg:
        await vg.indexed()
        before = await _answers(vg)
        assert await _fragment(vg) > MAX_SEGMENTS
        assert await _answers(vg) == before
    async with started(root) as vg:
        await vg.indexed()
        await _merged(vg)
        assert await vg.app.services.db.run_read(word_segments) == 1
        assert await _answers(vg) == before


async def test_a_word_index_of_few_segments_is_left_as_it_is(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEARCH_VAULT)) as vg:
        await vg.indexed()
        await _merged(vg)
        db = vg.app.services.db
        pages = "SELECT segid, term, pgno FROM fts_words_idx ORDER BY segid, term"
        kept = await db.fetchall(pages)
        assert len({row[0] for row in kept}) <= MAX_SEGMENTS
        assert await db.run_write(compact_words) is False
        assert await db.fetchall(pages) == kept


async def test_the_merge_waits_for_the_callers_to_pause(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEARCH_VAULT)) as vg:
        await vg.indexed()
        await _fragment(vg)
        activity = vg.app.activity
        activity.begin()  # a call that runs on and on
        vg.indexer().word_merge.ask()
        for _ in range(50):  # the merge gets every chance to run
            await asyncio.sleep(0)
        await vg.app.services.db.run_write(lambda c: None)  # after a merge that had been queued
        assert await vg.app.services.db.run_read(word_segments) > MAX_SEGMENTS
        activity.end()
        activity.last = float("-inf")  # as if the last call began long ago
        await _merged(vg)
        assert await vg.app.services.db.run_read(word_segments) == 1


async def test_the_maintenance_sweep_merges_the_segments_writes_left(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(make_vault(SEARCH_VAULT)) as vg:
        await vg.indexed()
        before = await _answers(vg)
        indexer = vg.indexer()
        await _merged(vg)
        monkeypatch.setattr(indexer.word_merge, "ask", lambda: None)  # no merge after a later reconcile
        assert await _fragment(vg) > MAX_SEGMENTS
        monkeypatch.undo()
        report = await vg.app.maintenance.sweep_once()
        assert report["status"] == "ok"
        await _merged(vg)
        assert await vg.app.services.db.run_read(word_segments) == 1
        assert await _answers(vg) == before
