"""Reindex jobs: one row per job in the `jobs` table, at most one active job per vault.

A job runs `VaultIndexer.reconcile` (kind `sync`: only notes whose mtime/size/hash changed;
kind `full`: every note re-parsed and every row rewritten) as a background task, recording
queued → running → done | failed with progress counters and timestamps. Asking for a job while
one runs returns the running job (`already_running`) instead of starting a second one. Each job
row names the server process that runs it (`owner`, `service.storage.owners`: a lock file in
`<cache>/job-owners` held for the process's life): rows a dead process left `queued`/`running`
(killed, or stopped before its last write) are marked `failed` ("interrupted") at start, so the
table never claims work nobody is doing, while another live server's job on the same cache (an
HTTP daemon and a stdio instance on one vault) is left as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from service.indexer.runner import VaultIndexer
from service.storage import owners
from service.storage.db import Database
from service.tasks import cancel_and_wait

log = logging.getLogger(__name__)
Kind = Literal["full", "sync"]
Progress = Callable[[int, int], Awaitable[None]]


@dataclass
class Job:
    id: str
    vault_id: str
    kind: str
    status: str = "queued"
    progress: int = 0
    total: int | None = None
    message: str | None = None
    created_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None
    error: str | None = None
    result: dict[str, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "vault": self.vault_id,
            "kind": self.kind,
            "status": self.status,
            "progress": self.progress,
            "total": self.total,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "error": self.error,
            "result": self.result,
        }


COLUMNS = "id, vault_id, kind, status, progress, total, message, created_at, started_at, finished_at, error"


def _job(row: Any) -> Job | None:
    if row is None:
        return None
    job = Job(
        id=row[0],
        vault_id=row[1],
        kind=row[2],
        status=row[3],
        progress=row[4],
        total=row[5],
        message=row[6],
        created_at=row[7],
        started_at=row[8],
        finished_at=row[9],
        error=row[10],
    )
    if job.message:
        with contextlib.suppress(ValueError, TypeError):
            job.result = json.loads(job.message)
    return job


class IndexJobs:
    """An app component (`start` recovers interrupted rows, `stop` cancels running jobs)."""

    name = "index_jobs"
    # A caller's progress notification may wait on a slow client; past this the job moves on
    # without it (the notification is dropped, the job is not slowed further).
    listener_timeout_s = 10.0

    def __init__(self, db: Database) -> None:
        self.db = db
        self.owner = owners.Owner(db.path.parent / "job-owners")  # this server's jobs and their held lock
        self._active: dict[str, Job] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._ending: dict[str, Job] = {}  # job id -> a job that ended and whose row is being written
        self._listeners: dict[str, list[Progress]] = {}
        # Told when a job starts running and when it finishes (client log notifications).
        self.on_change: Callable[[Job], Awaitable[None]] | None = None

    async def start(self) -> None:
        recovered = await self.recover()
        if recovered:
            log.warning("marked %d interrupted reindex job(s) as failed", recovered)

    async def recover(self) -> int:
        """Mark the jobs a dead process did not finish as failed; returns how many. A job whose
        owner still lives (another server on this cache) is left alone."""
        now, folder = time.time(), self.owner.folder

        def work(conn: Any) -> int:
            # Rows read before the locks are tried: a live server takes its lock before it
            # writes a job row, so every row read here has its owner's lock held already.
            active = conn.execute("SELECT id, owner FROM jobs WHERE status IN ('queued', 'running')").fetchall()
            live = owners.live_owners(folder)
            dead = [(now, job_id) for job_id, owner in active if owner not in live]
            conn.executemany(
                "UPDATE jobs SET status = 'failed', error = 'interrupted: the server stopped during the job',"
                " finished_at = ? WHERE id = ?",
                dead,
            )
            return len(dead)

        return await self.db.run_write(work)

    def active(self, vault_id: str) -> Job | None:
        return self._active.get(vault_id)

    async def last(self, vault_id: str) -> Job | None:
        row = await self.db.fetchone(
            f"SELECT {COLUMNS} FROM jobs WHERE vault_id = ? AND kind IN ('full', 'sync')"
            " ORDER BY created_at DESC LIMIT 1",
            (vault_id,),
        )
        job = _job(row)
        return self._ending.get(job.id, job) if job is not None else None

    async def get(self, job_id: str) -> Job | None:
        """A job by id: the running one as it is now (or as it ended, until its row says so), else its row."""
        for job in self._active.values():
            if job.id == job_id:
                return job
        if job_id in self._ending:
            return self._ending[job_id]
        return _job(await self.db.fetchone(f"SELECT {COLUMNS} FROM jobs WHERE id = ?", (job_id,)))

    async def wait(self, job_id: str) -> None:
        """Until the job `job_id` ends (at once when it is not running)."""
        task = self._tasks.get(job_id)
        if task is not None:
            with contextlib.suppress(Exception):  # its failure is recorded on the job
                await asyncio.shield(task)

    async def launch(
        self, indexer: VaultIndexer, kind: Kind, progress: Progress | None = None
    ) -> tuple[Job, bool, asyncio.Task[None]]:
        """Start a job, or join the running one. Returns (job, already_running, its task)."""
        vault_id = indexer.vault.id
        running = self._active.get(vault_id)
        if running is not None:
            if progress is not None:
                self._listeners.setdefault(running.id, []).append(progress)
            return running, True, self._tasks[running.id]
        job = Job(id=uuid.uuid4().hex[:16], vault_id=vault_id, kind=kind)
        # Registered before the first await, so a concurrent call always finds the job and its task.
        self._active[vault_id] = job
        self._listeners[job.id] = [progress] if progress is not None else []
        task = asyncio.create_task(self._run(indexer, job), name=f"reindex:{vault_id}:{job.id}")
        self._tasks[job.id] = task
        return job, False, task

    def detach(self, job_id: str, progress: Progress) -> None:
        """Stop telling `progress` about the job (its call was cancelled; the job goes on)."""
        listeners = self._listeners.get(job_id, [])
        if progress in listeners:
            listeners.remove(progress)

    async def _run(self, indexer: VaultIndexer, job: Job) -> None:
        async def on_progress(done: int, total: int) -> None:
            job.progress, job.total = done, total
            for listener in list(self._listeners.get(job.id, ())):
                with contextlib.suppress(Exception):  # a gone or stalled client must not stop the job
                    await asyncio.wait_for(listener(done, total), self.listener_timeout_s)

        try:
            await self._save(job)
            job.status, job.started_at = "running", time.time()
            indexer.active_job = job.id
            await self._save(job)
            await self._changed(job)
            job.result = await indexer.reconcile(full=job.kind == "full", progress=on_progress)
            job.status = "done"
            job.progress = job.total or job.progress
            log.info(
                "index of vault %s complete (reindex %s, %s): %s in %.1f s",
                job.vault_id,
                job.kind,
                job.id,
                ", ".join(f"{k} {v}" for k, v in (job.result or {}).items()),
                time.time() - (job.started_at or time.time()),
            )
        except asyncio.CancelledError:
            job.status, job.error = "failed", "cancelled: the server is stopping"
            raise
        except Exception as exc:
            log.exception("reindex %s of %s failed", job.kind, job.vault_id)
            job.status, job.error = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            job.finished_at = time.time()
            indexer.active_job = None
            self._active.pop(job.vault_id, None)  # a new launch starts a job of its own from now on
            self._listeners.pop(job.id, None)
            # Until its last row is written the job stays `get`'s and `wait`'s: dropped before that
            # write (a write of the writer's), a `wait` then (tasks/result, the end notification)
            # returned at once and `get` read the row the job began with, "running".
            self._ending[job.id] = job
            try:
                with contextlib.suppress(Exception):
                    await asyncio.shield(self._save(job))
            finally:
                self._ending.pop(job.id, None)
                self._tasks.pop(job.id, None)
            if not (job.error or "").startswith("cancelled"):  # not while the server is stopping
                await self._changed(job)

    async def _changed(self, job: Job) -> None:
        if self.on_change is not None:
            with contextlib.suppress(Exception):  # telling clients must never fail or stall the job
                await asyncio.wait_for(self.on_change(job), self.listener_timeout_s)

    async def _save(self, job: Job) -> None:
        message = json.dumps(job.result) if job.result is not None else None
        owner = self.owner.id  # held from the first row on

        def work(conn: Any) -> None:
            conn.execute(
                "INSERT INTO jobs(id, vault_id, kind, status, progress, total, message, created_at, started_at,"
                " finished_at, error, owner) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
                " status = excluded.status, progress = excluded.progress, total = excluded.total,"
                " message = excluded.message, started_at = excluded.started_at,"
                " finished_at = excluded.finished_at, error = excluded.error",
                (
                    job.id,
                    job.vault_id,
                    job.kind,
                    job.status,
                    job.progress,
                    job.total,
                    message,
                    job.created_at,
                    job.started_at,
                    job.finished_at,
                    job.error,
                    owner,
                ),
            )

        await self.db.run_write(work)

    async def stop(self) -> None:
        for task in list(self._tasks.values()):
            await cancel_and_wait(task)
        self.owner.release()  # a row the stop could not end is a dead owner's to the next start
