"""A bulk load defers the trigram index and rebuilds it after the index is ready; regex search
is complete either way (it scans instead of prefiltering), and a rebuild a previous process
did not finish is completed on the next start."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from service.app import VaultgateApp
from service.indexer import runner
from service.indexer.runner import VaultIndexer
from tests.conftest import Harness, settings_for, started
from tests.search_vault import SEARCH_VAULT


async def _trigram_done(indexer: VaultIndexer) -> None:
    await indexer.query_indexes.settled()  # a cold load's rebuild is asked once they are built
    await indexer.trigram.settled()
    assert indexer.trigram_ready


@contextlib.asynccontextmanager
async def started_busy(root: Path) -> AsyncIterator[Harness]:
    """`started`, with a call running from before the app starts (a call that runs on and on, until
    the test ends it): the rebuild, asked once the cold load's query indexes are built, always
    meets it. Begun once `started` had returned, the call could come too late: with no call yet,
    the rebuild need not wait, and a start slowed by load let the small cold load, its query
    indexes and the rebuild all run first (full suite at -n 2, s78)."""
    app = VaultgateApp(settings_for(root))
    app.activity.begin()
    async with app.running():
        yield Harness(app, root)


async def test_bulk_load_rebuilds_trigram_after_ready_and_regex_stays_complete(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 3)
    async with started(make_vault(SEARCH_VAULT)) as vg:
        await vg.indexed()
        first = await vg.ok("search_regex", pattern=r"code \d+")
        assert [i["path"] for i in first["items"]] == ["Projects/Gamma.md"]
        await _trigram_done(vg.indexer())
        again = await vg.ok("search_regex", pattern=r"code \d+")
        assert again["prefiltered"] is True and again["items"] == first["items"]
        deferred = await vg.app.services.db.fetchone("SELECT trigram_deferred FROM fts_control")
        assert deferred[0] == 0


async def test_unfinished_trigram_rebuild_is_completed_on_restart(make_vault: Callable[..., Path]) -> None:
    root = make_vault(SEARCH_VAULT)
    async with started(root) as vg:
        await vg.indexed()
        await vg.app.services.db.run_write(lambda c: c.execute("UPDATE fts_control SET trigram_deferred = 1"))
    async with started(root) as vg:
        await vg.indexed()
        await _trigram_done(vg.indexer())
        out = await vg.ok("search_regex", pattern="tomatoes")
        assert out["prefiltered"] is True and [i["path"] for i in out["items"]] == ["Journal/2026-01-05.md"]


async def test_the_trigram_rebuild_waits_for_the_callers_to_pause(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 3)
    async with started_busy(make_vault(SEARCH_VAULT)) as vg:
        activity = vg.app.activity
        await vg.indexed()
        indexer = vg.indexer()
        for _ in range(50):  # the rebuild task gets every chance to run
            await asyncio.sleep(0)
        await vg.app.services.db.run_write(lambda c: None)  # after a rebuild that had been queued
        deferred = await vg.app.services.db.fetchone("SELECT trigram_deferred FROM fts_control")
        assert deferred[0] == 1 and not indexer.trigram_ready  # regex search scans meanwhile
        activity.end()
        activity.last = float("-inf")  # as if the last call began long ago
        await _trigram_done(indexer)


async def test_a_server_stopped_while_the_rebuild_waits_for_a_pause_cancels_it_and_the_next_start_rebuilds(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 3)
    root = make_vault(SEARCH_VAULT)
    async with started_busy(root) as vg:  # the rebuild waits for a pause (up to a minute)
        await vg.indexed()
        await vg.indexer().query_indexes.settled()  # built first, without waiting for a pause
        job = vg.indexer().trigram
        assert job.running
    assert job.task is not None and job.task.cancelled() and job.runs == 0
    async with started(root) as vg:  # the deferral is in the index: the next start rebuilds it
        await vg.indexed()
        await _trigram_done(vg.indexer())
