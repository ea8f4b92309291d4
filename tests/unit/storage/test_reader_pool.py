"""The pool of reader connections hands out the one used last (its page cache is the warm one),
and every reader still serves when queries overlap."""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref
from pathlib import Path

from service.storage.db import Database


async def test_the_reader_used_last_is_handed_out_again(tmp_path: Path) -> None:
    db = Database(tmp_path / "cache.db", readers=3)
    await db.open()
    try:
        conn_ids = [await db.run_read(id) for _ in range(5)]
        assert len(set(conn_ids)) == 1  # one query at a time: always the same connection
        gate = threading.Event()
        entered: list[int] = []

        def hold(conn: object) -> int:
            entered.append(id(conn))
            if len(entered) < 3:
                gate.wait(5)
            else:
                gate.set()
            return id(conn)

        overlapping = await asyncio.gather(*(db.run_read(hold) for _ in range(3)))
        assert len(set(overlapping)) == 3  # overlapping queries: each on a reader of its own
        assert overlapping[0] == conn_ids[0]  # the first of them got the warm one
    finally:
        await db.close()


async def test_a_connection_does_not_keep_what_its_last_job_returned(tmp_path: Path) -> None:
    """aiosqlite's worker keeps its last job's result until its next job: a reader not used again
    would pin a whole Dataview page set for the life of the server."""

    class Result:
        pass

    db = Database(tmp_path / "cache.db", readers=2)
    await db.open()
    try:
        for run in (db.run_read, db.run_write):
            made = await run(lambda conn: Result())
            gone = weakref.ref(made)
            del made
            gc.collect()
            assert gone() is None
    finally:
        await db.close()
