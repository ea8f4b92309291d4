"""Another process holding cache.db's write lock (several stdio instances share one cache) past
SQLite's busy timeout: a watcher batch that meets the lock is applied once the lock is gone (the
BEGIN IMMEDIATE is tried again, then the batch, then the vault is re-read), not dropped with
"database is locked" and left stale until the next reconcile. The interleaving is forced: a
second connection takes the write lock, the test waits until the app has met it, then lets go."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from service.storage import db as db_module
from tests.conftest import Harness, started

WITHIN = 60.0


def _met_the_lock(caplog: pytest.LogCaptureFixture) -> bool:
    """The watcher's batch, or a BEGIN IMMEDIATE, met the lock (other writers' failures, a word
    index merge's, say, are not the sign: a batch still in SQLite's busy wait then succeeds)."""
    for record in caplog.records:
        if record.name not in ("service.indexer.watch", "service.storage.db"):
            continue
        text = record.getMessage() + (str(record.exc_info[1]) if record.exc_info else "")
        if "locked" in text:
            return True
    return False


async def _indexed(vg: Harness, path: str) -> bool:
    return bool(await vg.app.services.db.fetchone("SELECT 1 FROM notes WHERE path = ?", (path,)))


async def _external_note_while_locked(vg: Harness, caplog: pytest.LogCaptureFixture) -> None:
    await vg.indexer().wait_ready(WITHIN)
    # The index's own SQLite library: two libraries in one process do not see each other's locks.
    other = db_module.driver().connect(str(vg.app.services.db.path), isolation_level=None, timeout=WITHIN)
    try:
        other.execute("BEGIN IMMEDIATE")  # another instance's long write transaction
        (vg.root / "Outside.md").write_text("# Outside\n\nwritten by hand\n", encoding="utf-8")
        async with asyncio.timeout(WITHIN):
            while not _met_the_lock(caplog):  # noqa: ASYNC110 - a log record is the sign
                await asyncio.sleep(0.05)
        assert not await _indexed(vg, "Outside.md")
    finally:
        other.rollback()
        other.close()
    async with asyncio.timeout(WITHIN):
        while not await _indexed(vg, "Outside.md"):  # noqa: ASYNC110 - the index row is the sign
            await asyncio.sleep(0.1)


@pytest.mark.parametrize("pauses", [(0.05, 0.25, 1.0, 3.0, 10.0), ()], ids=["begin-again", "batch-again"])
async def test_a_batch_meeting_a_locked_cache_is_applied_after_the_lock(
    make_vault: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    pauses: tuple[float, ...],
) -> None:
    """`begin-again`: BEGIN IMMEDIATE is tried again until the lock is gone; `batch-again`: with
    no such tries left, the watcher applies the batch again (or re-reads the vault)."""
    caplog.set_level(logging.WARNING)
    monkeypatch.setattr(db_module, "BUSY_TIMEOUT_MS", 200, raising=False)
    monkeypatch.setattr(db_module, "LOCK_PAUSES_S", pauses, raising=False)
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        await _external_note_while_locked(vg, caplog)
