"""ocr_bulk's job gives way to calls: before a file, a job nobody waits on lets the calls running
end first (bounded); a job a caller waits for goes on at once."""

from __future__ import annotations

import asyncio
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
    waiting = asyncio.create_task(jobs.give_way(job, within=60))
    done, _ = await asyncio.wait({waiting}, timeout=0.1)
    assert not done  # a call runs: the next file waits
    activity.end()
    await asyncio.wait_for(waiting, 5)  # the call ended: the job goes on

    activity.begin()
    job.listeners.append(_listener)  # a caller waits on the job: it goes on at once
    await asyncio.wait_for(jobs.give_way(job, within=60), 5)
    job.listeners.clear()
    await asyncio.wait_for(jobs.give_way(job, within=0.05), 5)  # and never waits past `within`
    activity.end()
