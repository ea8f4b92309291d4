"""A background write of the indexer (`WriterJob`: the trigram rebuild, the word index's merge)
waits for the calls to pause, runs once more when asked again while its write runs, logs a
failure without ending anything else, and ends at once when cancelled while it waits."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from service.activity import Activity
from service.indexer.writer_job import WriterJob
from service.storage.db import Database

WAIT_S = 5.0  # every wait on the write's thread is bounded


class Write:
    """The job's write: counts its runs in a table; `hold` keeps the next run in its transaction
    until `release`; `fail` makes runs raise."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.gate.set()
        self.fail = False

    def __call__(self, conn: sqlite3.Connection) -> None:
        self.entered.set()
        assert self.gate.wait(WAIT_S)
        if self.fail:
            raise RuntimeError("the write broke")
        conn.execute("CREATE TABLE IF NOT EXISTS runs(n INTEGER)")
        conn.execute("INSERT INTO runs VALUES (1)")


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(tmp_path / "job.db")
    await database.open()
    try:
        yield database
    finally:
        await database.close()


async def _rows(db: Database) -> int:
    row = await db.fetchone("SELECT COUNT(*) FROM runs")
    return int(row[0])


def _job(db: Database, write: Write, activity: Activity | None = None, done: list[int] | None = None) -> WriterJob:
    return WriterJob(
        db,
        activity,
        "test:job",
        write,
        wait_s=60.0,
        failed="what depends on it works without it",
        done=None if done is None else (lambda: done.append(1)),
    )


def _paused(activity: Activity) -> None:
    activity.end()
    activity.last = float("-inf")  # as if the last call began long ago


async def test_the_job_waits_for_the_calls_to_pause_before_its_write(db: Database) -> None:
    activity, write, done = Activity(), Write(), []
    job = _job(db, write, activity, done)
    activity.begin()  # a call that runs on and on
    job.ask()
    for _ in range(50):  # the job gets every chance to run
        await asyncio.sleep(0)
    await db.run_write(lambda c: None)  # after a write that had been queued
    assert job.running and not write.entered.is_set() and job.runs == 0
    _paused(activity)
    await job.settled()
    assert job.runs == 1 and done == [1] and await _rows(db) == 1


async def test_asked_again_while_its_write_runs_the_job_runs_once_more(db: Database) -> None:
    write, done = Write(), []
    job = _job(db, write, done=done)
    write.gate.clear()
    job.ask()
    assert await asyncio.to_thread(write.entered.wait, WAIT_S)  # the write is in its transaction
    job.ask()
    job.ask()  # any number of asks meanwhile: one more run
    write.gate.set()
    await job.settled()
    assert job.runs == 2 and done == [1] and await _rows(db) == 2


async def test_asked_while_it_waits_for_the_pause_the_job_writes_once(db: Database) -> None:
    activity, write = Activity(), Write()
    job = _job(db, write, activity)
    activity.begin()
    job.ask()
    await asyncio.sleep(0)
    job.ask()  # its write has not begun: it covers this request
    _paused(activity)
    await job.settled()
    assert job.runs == 1 and await _rows(db) == 1


async def test_a_failed_write_is_logged_and_the_next_ask_runs_again(
    db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    write, done = Write(), []
    job = _job(db, write, done=done)
    write.fail = True
    with caplog.at_level(logging.ERROR, logger="service.indexer.writer_job"):
        job.ask()
        await job.settled()
    assert job.task is not None and not job.task.cancelled() and job.task.exception() is None
    assert [r.getMessage() for r in caplog.records] == ["test:job failed; what depends on it works without it"]
    assert caplog.records[0].exc_info is not None and job.runs == 0 and done == []
    write.fail = False
    job.ask()
    await job.settled()
    assert job.runs == 1 and done == [1] and await _rows(db) == 1


async def test_cancelled_while_it_waits_for_the_pause_the_job_ends_without_its_write(
    db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    activity, write, done = Activity(), Write(), []
    job = _job(db, write, activity, done)
    activity.begin()
    job.ask()
    await asyncio.sleep(0)
    with caplog.at_level(logging.ERROR, logger="service.indexer.writer_job"):
        await asyncio.wait_for(job.cancel(), WAIT_S)
    assert job.task is not None and job.task.cancelled() and not job.running
    assert not write.entered.is_set() and job.runs == 0 and done == [] and not caplog.records
    _paused(activity)  # a later pause starts nothing by itself
    await asyncio.sleep(0)
    assert not write.entered.is_set()
