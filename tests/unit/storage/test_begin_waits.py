"""BEGIN IMMEDIATE while another connection (another vaultgate instance) holds the write lock:
a transaction whose caller is cancelled during the pauses leaves no transaction open behind it,
and closing the database ends the pauses at once (a stopping server does not wait them out)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import anyio
import pytest

from service.storage import db as db_module


async def _locked_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[db_module.Database, object]:
    monkeypatch.setattr(db_module, "BUSY_TIMEOUT_MS", 50)
    monkeypatch.setattr(db_module, "LOCK_PAUSES_S", (0.05, 600.0))  # the second pause would outlast the test
    database = db_module.Database(tmp_path / "cache.db", readers=1)
    await database.open()
    other = db_module.driver().connect(str(database.path), isolation_level=None, timeout=0.05)
    other.execute("BEGIN IMMEDIATE")  # another instance's write
    return database, other


async def test_a_cancelled_transaction_leaves_no_begin_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    database, other = await _locked_database(tmp_path, monkeypatch)
    try:

        async def write() -> None:
            async with database.transaction() as conn:
                await conn.execute("SELECT 1")

        task = asyncio.create_task(write())
        await asyncio.sleep(0.3)  # in the long pause
        task.cancel()
        with anyio.fail_after(30), pytest.raises(asyncio.CancelledError):
            await task
        other.rollback()  # type: ignore[attr-defined]
        with anyio.fail_after(30):
            async with database.transaction() as conn:  # not "cannot start a transaction within a transaction"
                await conn.execute("SELECT 1")
        other.execute("BEGIN IMMEDIATE")  # type: ignore[attr-defined]  # nor the lock kept
        other.rollback()  # type: ignore[attr-defined]
    finally:
        other.close()  # type: ignore[attr-defined]
        await database.close()


async def test_closing_ends_the_pauses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    database, other = await _locked_database(tmp_path, monkeypatch)
    try:
        task = asyncio.create_task(database.run_write(lambda conn: conn.execute("SELECT 1").fetchone()))
        await asyncio.sleep(0.3)  # in the long pause
        with anyio.fail_after(60):  # a hang guard: the pause is 600 s
            await database.close()
        with pytest.raises(db_module.DbOperationalError):
            await task  # the lock error, at once
    finally:
        other.close()  # type: ignore[attr-defined]
