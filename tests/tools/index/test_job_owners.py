"""A reindex job belongs to the server process that started it (`service.storage.owners`, the
`jobs.owner` column): a second server on the same vault and cache (an HTTP daemon plus a stdio
instance) used to mark the first one's live job `failed` ("interrupted") at its start, while the
job went on; now it leaves it `running`. A job whose owner is gone (kill -9, a stop that could
not write the job's end, a row from before the column) is still marked failed at the next start."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from service.indexer.jobs import IndexJobs
from tests.conftest import Harness, started
from tests.killed import held
from tests.search_vault import SEARCH_VAULT

INTERRUPTED = "interrupted: the server stopped during the job"


async def _jobs(vg: Harness) -> list[tuple[object, ...]]:
    rows = await vg.app.services.db.fetchall("SELECT kind, status, error FROM jobs ORDER BY created_at")
    return [tuple(r) for r in rows]


def _lock_files(vg: Harness) -> list[str]:
    folder = vg.app.services.index_jobs.owner.folder
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


async def test_a_live_server_process_reindex_job_is_left_running_and_failed_once_killed(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """tests/reindex_held.py holds a real server process inside a full reindex (at its first
    progress). A server started meanwhile on the same vault and cache leaves the job `running`
    (its index_status says so); after a kill -9 of that process the next start marks it failed."""
    root = make_vault(SEARCH_VAULT)
    async with held("tests.reindex_held", root, tmp_path / "held") as proc:
        async with started(root) as other:
            assert await _jobs(other) == [("full", "running", None)]
            status = await other.ok("index_status")
            assert status["last_job"]["status"] == "running" and status["last_job"]["kind"] == "full"
            assert len(_lock_files(other)) == 1  # the held process's lock, left in place
        async with started(root) as third:  # a start after another server's stop: still alive
            assert await _jobs(third) == [("full", "running", None)]
        proc.kill()  # SIGKILL: the kernel drops its owner lock
    async with started(root) as vg:
        assert await _jobs(vg) == [("full", "failed", INTERRUPTED)]
        assert _lock_files(vg) == []  # the dead owner's lock file is swept
        assert (await vg.ok("index_status"))["last_job"]["error"] == INTERRUPTED


async def test_a_second_server_in_process_leaves_a_running_job_to_finish_done(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(SEARCH_VAULT)
    async with started(root, index={"watch": False}) as a:
        await a.indexed()
        jobs = a.app.services.index_jobs
        assert isinstance(jobs, IndexJobs)
        jobs.listener_timeout_s = 60.0
        blocked, release = asyncio.Event(), asyncio.Event()

        async def hold(done: float, total: float | None, message: str | None) -> None:
            blocked.set()
            await asyncio.wait_for(release.wait(), 60)

        call = asyncio.create_task(
            a.app.dispatcher.call("reindex", {"mode": "full", "wait": True}, principal=a.principal, progress=hold)
        )
        await asyncio.wait_for(blocked.wait(), 60)
        async with started(root, index={"watch": False}) as b:
            assert await _jobs(b) == [("full", "running", None)]
        assert await _jobs(a) == [("full", "running", None)]
        release.set()
        result = await asyncio.wait_for(call, 60)
        assert result.structured is not None and result.structured["job"]["status"] == "done"
        assert await _jobs(a) == [("full", "done", None)]
        assert (await a.ok("index_status"))["last_job"]["status"] == "done"


async def test_jobs_of_gone_owners_are_failed_at_start_and_a_live_ones_are_not(
    make_vault: Callable[..., Path],
) -> None:
    """Rows with no owner (before the column), with an owner whose lock file is gone (a stop
    released it), and a queued row of a live owner: only the first two are marked failed."""
    root = make_vault(SEARCH_VAULT)
    async with started(root) as a:
        live = a.app.services.index_jobs.owner.id
        await a.app.services.db.run_write(
            lambda c: c.executemany(
                "INSERT INTO jobs(id, vault_id, kind, status, created_at, owner) VALUES (?, 'main', ?, ?, ?, ?)",
                [
                    ("old", "full", "running", 1, None),
                    ("gone", "sync", "queued", 2, "0123456789abcdef0123456789abcdef"),
                    ("live", "sync", "queued", 3, live),
                ],
            )
        )
        async with started(root) as b:
            rows = await b.app.services.db.fetchall("SELECT id, status, error FROM jobs ORDER BY created_at")
            assert [tuple(r) for r in rows] == [
                ("old", "failed", INTERRUPTED),
                ("gone", "failed", INTERRUPTED),
                ("live", "queued", None),
            ]
