"""`Database.run_read_here`: a short query runs on the event loop when no reader is busy, on a
reader's thread when one is (calls still overlap), and a query past the budget is stopped and
run again on a thread, the next ones sent there at once."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from service.storage import db as dbmod
from service.storage.db import Database, DbOperationalError

_LONG = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) SELECT sum(x) FROM c"


def _thread(conn: sqlite3.Connection) -> int:
    conn.execute("SELECT 1").fetchone()
    return threading.get_ident()


async def test_a_query_runs_on_the_loop_when_no_reader_is_busy(tmp_path: Path) -> None:
    db = Database(tmp_path / "cache.db", readers=2)
    await db.open()
    try:
        assert await db.run_read_here(_thread) == threading.get_ident()
        assert await db.run_read(_thread) != threading.get_ident()  # run_read: a reader's thread, as before
    finally:
        await db.close()


async def test_a_query_goes_to_a_thread_while_another_reader_is_busy(tmp_path: Path) -> None:
    db = Database(tmp_path / "cache.db", readers=2)
    await db.open()
    gate = threading.Event()
    try:

        def hold(conn: sqlite3.Connection) -> None:
            gate.wait(5)

        held = asyncio.create_task(db.run_read(hold))
        await asyncio.sleep(0)  # the hold has its reader
        try:
            assert await db.run_read_here(_thread) != threading.get_ident()
        finally:
            gate.set()
            await held
        assert await db.run_read_here(_thread) == threading.get_ident()  # idle again: on the loop
    finally:
        await db.close()


async def test_a_query_past_the_budget_runs_again_on_a_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dbmod, "HERE_BUDGET_S", 0.001)
    db = Database(tmp_path / "cache.db", readers=2)
    await db.open()
    try:
        runs: list[int] = []

        def long(conn: sqlite3.Connection) -> int:
            runs.append(threading.get_ident())
            try:
                return int(conn.execute(_LONG).fetchone()[0])
            except DbOperationalError:
                return -1  # what a caller may make of the stopped statement: dropped, not answered

        assert await db.run_read_here(long) == 3000000 * 3000001 // 2
        assert runs[0] == threading.get_ident() and runs[1] != threading.get_ident()
        assert await db.run_read_here(_thread) != threading.get_ident()  # the next ones: a thread at once
    finally:
        await db.close()


async def test_an_error_of_the_query_itself_is_raised(tmp_path: Path) -> None:
    db = Database(tmp_path / "cache.db", readers=1)
    await db.open()
    try:
        with pytest.raises(DbOperationalError):
            await db.run_read_here(lambda conn: conn.execute("SELECT * FROM missing").fetchall())
        assert await db.run_read_here(_thread) == threading.get_ident()  # the reader went back to the pool
    finally:
        await db.close()
