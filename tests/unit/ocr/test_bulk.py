"""ocr_bulk's job gives way to calls: before a file, a job nobody waits on lets the calls running
end first (bounded); a job a caller waits for goes on at once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from service.activity import Activity
from service.ocr.bulk import OcrJob, OcrJobs


async def _listener(done: int, total: int, message: str) -> None:
    return None


async def test_a_job_nobody_waits_on_waits_for_the_running_calls_and_only_so_long() -> None:
    activity = Activity()
    jobs = OcrJobs(reader=cast(Any, None), db=cast(Any, None), activity=activity)
    job = OcrJob(id="j", vault_id="v", folder="")
    activity.begin()
    waiting = asyncio.create_task(jobs.give_way(job, within=600))  # past every bound below
    done, _ = await asyncio.wait({waiting}, timeout=0.1)
    assert not done  # a call runs: the next file waits
    activity.end()
    await asyncio.wait_for(waiting, 60)  # the call ended: the job goes on

    activity.begin()
    job.listeners.append(_listener)  # a caller waits on the job: it goes on at once
    await asyncio.wait_for(jobs.give_way(job, within=600), 60)
    job.listeners.clear()
    await asyncio.wait_for(jobs.give_way(job, within=0.05), 60)  # and never waits past `within`
    activity.end()


class _Reader:
    """Lists nothing as read before; the first `forget` (the listing's last step) is held until
    `release`; every `read` is held until `reading` is set (the job runs until cancelled)."""

    def __init__(self) -> None:
        self.listing, self.release, self.reading = asyncio.Event(), asyncio.Event(), asyncio.Event()
        self.forgot = 0

    async def forget(self, vault_id: str, rels: list[str]) -> None:
        self.forgot += 1
        if self.forgot == 1:
            self.listing.set()
            await self.release.wait()

    async def read(self, vault_id: str, rel: str, root: Any, path: Any, *, force: bool = False) -> Any:
        await self.reading.wait()
        return SimpleNamespace(cached=False)


class _Db:
    async def fetchall(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        return []


async def _joined_while_listing(jobs: OcrJobs, reader: _Reader) -> tuple[asyncio.Task[Any], OcrJob]:
    root = Path("/nonexistent")
    vault = SimpleNamespace(id="v", paths=SimpleNamespace(root=root, on_disk=lambda rel: root / rel))
    files = [("a.png", 1.0, 1), ("b.png", 1.0, 1)]
    first = asyncio.create_task(jobs.launch(cast(Any, vault), "", files, force=False))
    await asyncio.wait_for(reader.listing.wait(), 60)
    job, joined = await jobs.launch(cast(Any, vault), "", files, force=False)
    assert joined and job.task is None  # the first start is still listing the files
    return first, job


async def test_a_job_joined_while_its_files_are_listed_is_waited_for_to_its_end() -> None:
    """A second start while the first lists the files joins a job with no task yet: its `wait`
    (ocr_bulk wait=true, tasks/result) returned at once, with the job at 0 of 0 files."""
    reader = _Reader()
    jobs = OcrJobs(reader=cast(Any, reader), db=cast(Any, _Db()))
    first, job = await _joined_while_listing(jobs, reader)
    waiter = asyncio.create_task(jobs.wait(job))
    for _ in range(5):  # the old `wait` found no task and ended in its first step
        await asyncio.sleep(0)
    assert not waiter.done()
    reader.release.set()
    assert (await asyncio.wait_for(first, 60))[0] is job
    reader.reading.set()
    await asyncio.wait_for(waiter, 60)
    assert job.status == "done" and (job.total, job.done) == (2, 2)


async def test_a_job_cancelled_while_its_files_are_listed_does_not_run() -> None:
    """`cancel` while the first start lists the files found no task to end, answered the job
    still running, and the job then ran to its end."""
    reader = _Reader()
    jobs = OcrJobs(reader=cast(Any, reader), db=cast(Any, _Db()))
    first, job = await _joined_while_listing(jobs, reader)
    cancelling = asyncio.create_task(jobs.cancel("v"))
    for _ in range(5):
        await asyncio.sleep(0)
    reader.release.set()
    await asyncio.wait_for(first, 60)
    assert await asyncio.wait_for(cancelling, 60) is job
    assert job.status == "cancelled" and job.done == 0
