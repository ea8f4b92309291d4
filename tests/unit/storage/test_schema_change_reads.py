"""A read that meets a schema change. After a cold load the writer builds the deferred indexes
one by one, then the trigram index, and every schema change drops the virtual tables each
connection had connected; a statement that connects one again (FTS5's `fts_words`) while the
schema keeps changing failed with SQLITE_SCHEMA ("vtable constructor failed: fts_words"), which
search_text answered as a query_syntax_error. Such a read is run once more inside one read
transaction, where the schema cannot change under it (`Database.run_read`); any other error is
not run again."""

from __future__ import annotations

import asyncio
import gc
import sqlite3
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from service.plane.job import JobContext
from service.storage.db import Database, DbOperationalError, schema_changed
from tests.conftest import started

NOTES = {f"n{i:02}.md": f"# Note {i}\n\nA garden plan, part {i % 3}, word{i}x.\n" for i in range(20)}


async def test_searches_while_the_schema_keeps_changing_all_answer(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(NOTES), index={"watch": False}) as vg:
        await vg.indexed()
        db = vg.app.services.db
        stop = asyncio.Event()

        async def change_schema() -> int:
            changes = 0
            while not stop.is_set():
                await db.run_write(lambda c: c.execute("CREATE INDEX churn ON notes(title, mtime)"))
                await db.run_write(lambda c: c.execute("DROP INDEX churn"))
                changes += 2
            return changes

        writer = asyncio.create_task(change_schema())
        try:
            for i in range(300):
                found = await vg.ok("search_text", query=f"word{i % 20}x")
                assert [h["path"] for h in found["items"]] == [f"n{i % 20:02}.md"]
                rows = await db.fetchall("SELECT rowid FROM fts_words WHERE fts_words MATCH 'garden'")
                assert len(rows) == len(NOTES)
        finally:
            stop.set()
            changes = await writer
        assert changes > 50  # the schema did change under the searches


async def test_a_read_the_schema_changed_under_runs_once_more_in_one_snapshot(tmp_path: Path) -> None:
    db = Database(tmp_path / "cache.db", readers=1)
    await db.open()
    try:
        runs: list[bool] = []

        def failing(code: int, times: int) -> Callable[[sqlite3.Connection], str]:
            def read(conn: sqlite3.Connection) -> str:
                runs.append(conn.in_transaction)
                if len(runs) <= times:
                    exc = DbOperationalError[-1]("vtable constructor failed: fts_words")
                    exc.sqlite_errorcode = code  # type: ignore[attr-defined]
                    raise exc
                return "read"

            return read

        assert await db.run_read(failing(17, 1)) == "read"
        assert runs == [False, True]  # again, inside a read transaction
        assert not await db.run_read(lambda c: c.in_transaction)  # which ended
        for code, times, tries in ((17, 2, 2), (1, 1, 1), (5, 1, 1)):  # twice; an error; busy
            runs.clear()
            try:
                await db.run_read(failing(code, times))
            except DbOperationalError as exc:
                assert schema_changed(exc) == (code == 17)
            else:
                raise AssertionError("not raised")
            assert len(runs) == tries
            assert not await db.run_read(lambda c: c.in_transaction)
    finally:
        await db.close()


class _Held:
    """What a read's function closes over (a job's titles, a query's rows)."""


async def test_a_reader_lets_go_of_the_function_it_ran(tmp_path: Path) -> None:
    """aiosqlite's worker keeps its last job until the next: the function given to it, and all it
    closes over, stay alive while the reader is not used again. `in_thread` lets go of it as it is
    called, for reads and for writes."""
    db = Database(tmp_path / "cache.db", readers=1)
    await db.open()
    try:
        for run in (db.run_read, db.run_write):
            held = _Held()
            ref = weakref.ref(held)

            def read(conn: sqlite3.Connection, held: _Held | None = held) -> int:
                return int(held is not None) + conn.execute("SELECT 1").fetchone()[0]

            assert await run(read) == 2
            del held, read
            gc.collect()
            assert ref() is None, run.__name__
    finally:
        await db.close()


async def test_a_plane_jobs_read_the_schema_changed_under_runs_once_more(tmp_path: Path) -> None:
    """A consolidation job's read goes through the same retry as any read (its function may be
    called twice; letting go of it after the first call must not lose the second)."""
    db = Database(tmp_path / "cache.db", readers=1)
    await db.open()
    try:
        none = cast(Any, None)
        ctx = JobContext(none, db, none, none, None, none, none, None, 0.0)
        runs: list[bool] = []

        def read(conn: sqlite3.Connection) -> str:
            runs.append(conn.in_transaction)
            if len(runs) == 1:
                exc = DbOperationalError[-1]("vtable constructor failed: fts_words")
                exc.sqlite_errorcode = 17  # type: ignore[attr-defined]
                raise exc
            return "read"

        assert await ctx.read(read) == "read" and runs == [False, True]
    finally:
        await db.close()
