"""ocr_bulk's background job: the text of every image and PDF of a vault (or one folder), one file
after another, with progress, cancellable.

At most one job per vault: asking again while one runs joins it. The job lists the files the
caller who started it may read (`readable`), leaves out those whose row in `ocr_files` still
matches their size and mtime (read before, or failed before: unchanged, so no new answer) unless
`force`, and reads the others through `OcrReader` (the content cache answers copies at once).
Rows of files gone from the listed folder are dropped, with their text in the notes that
embedded them. Files are opened by the name their folder spells them (an NFD name from macOS
is the file at its NFC path: `service.vault.spelling`), so such a file is read, never taken for
gone. A file that fails is counted and named (its error code); the job goes on. The
recognizer runs in the worker process at a lower CPU priority (nice 10), so the server's calls
get the CPU first; the event loop only awaits (a file's hash is taken in a worker thread); and
before each file a job nobody waits on gives way to the calls running (`service.activity`), for
at most `GIVE_WAY_S`. The
last job of each vault stays in memory (not in a table) until the next one starts; a server stop
cancels running jobs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from service.activity import Activity
from service.errors import VaultgateError
from service.ocr.reading import OcrReader, readable_kind
from service.storage.db import Database
from service.tasks import cancel_and_wait
from service.vault.vault import Vault

log = logging.getLogger(__name__)
Progress = Callable[[int, int, str], Awaitable[None]]
Status = Literal["running", "done", "failed", "cancelled"]
FAILURES_KEPT = 100
KEPT = 50  # jobs remembered by id
GIVE_WAY_S = 2.0  # before a file: how long the job waits at most for other calls to end


@dataclass
class OcrJob:
    id: str
    vault_id: str
    folder: str
    status: Status = "running"
    total: int = 0  # files to read (after the unchanged ones are left out)
    done: int = 0  # of them, handled (read, cached or failed)
    read: int = 0
    cached: int = 0  # answered by the content cache
    unchanged: int = 0  # left out: unchanged since they were read
    failed: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)  # (path, error code), the first FAILURES_KEPT
    started_at: float = field(default_factory=time.time)
    finished_at: float | None = None
    error: str | None = None
    task: asyncio.Task[None] | None = None
    listeners: list[Progress] = field(default_factory=list)
    # Set once `task` exists, or the listing before it failed: a second start joins the job while
    # its files are still being listed, and what it waits for (or cancels) is that task.
    launched: asyncio.Event = field(default_factory=asyncio.Event)


class OcrJobs:
    def __init__(self, reader: OcrReader, db: Database, activity: Activity | None = None) -> None:
        self.reader = reader
        self.db = db
        self.activity = activity
        self.jobs: dict[str, OcrJob] = {}  # vault id -> its running or last job
        self.by_id: dict[str, OcrJob] = {}  # the last KEPT jobs of every vault (MCP tasks look them up)

    async def launch(
        self,
        vault: Vault,
        folder: str,
        files: Iterable[tuple[str, float, int]],
        *,
        force: bool,
        progress: Progress | None = None,
    ) -> tuple[OcrJob, bool]:
        """Start a job over `files` ((path, mtime, size) the caller may read under `folder`), or
        join the running one; (job, joined). The job's `total` is known when this returns."""
        running = self.jobs.get(vault.id)
        if running is not None and running.status == "running":
            if progress is not None:
                running.listeners.append(progress)
            return running, True
        job = OcrJob(id=uuid.uuid4().hex[:16], vault_id=vault.id, folder=folder)
        if progress is not None:
            job.listeners.append(progress)
        self.jobs[vault.id] = job  # before the first await: a concurrent start joins it
        self.by_id[job.id] = job
        while len(self.by_id) > KEPT:
            del self.by_id[next(iter(self.by_id))]
        try:
            todo = await self._todo(vault, job, list(files), force)
        except BaseException as exc:
            job.status, job.error, job.finished_at = "failed", f"{type(exc).__name__}: {exc}", time.time()
            job.launched.set()
            raise
        job.total = len(todo)
        job.task = asyncio.get_running_loop().create_task(
            self._run(vault, job, todo, force), name=f"ocr-bulk:{vault.id}:{job.id}"
        )
        job.launched.set()
        return job, False

    def last(self, vault_id: str) -> OcrJob | None:
        return self.jobs.get(vault_id)

    async def wait(self, job: OcrJob) -> None:
        """Until the job has ended (a job joined while its files were listed: once it began too)."""
        await job.launched.wait()
        if job.task is not None:
            await asyncio.wait({job.task})

    async def cancel(self, vault_id: str) -> OcrJob | None:
        """Stop the vault's running job (the files read so far stay read); the job, or None."""
        job = self.jobs.get(vault_id)
        if job is None or job.status != "running":
            return job
        await job.launched.wait()  # still listing its files: its task comes next, and is what ends
        await cancel_and_wait(job.task)
        return job

    async def stop(self) -> None:
        for job in list(self.jobs.values()):
            if job.status == "running":
                await cancel_and_wait(job.task)

    def detach(self, job: OcrJob, progress: Progress) -> None:
        if progress in job.listeners:
            job.listeners.remove(progress)

    async def _run(self, vault: Vault, job: OcrJob, todo: list[str], force: bool) -> None:
        try:
            await self._tell(job, "files to read")
            for rel in todo:
                await self.give_way(job)
                try:
                    reading = await self.reader.read(
                        vault.id, rel, vault.paths.root, vault.paths.on_disk(rel), force=force
                    )
                except VaultgateError as exc:
                    job.failed += 1
                    if len(job.failures) < FAILURES_KEPT:
                        job.failures.append((rel, exc.code))
                else:
                    job.cached += reading.cached
                    job.read += not reading.cached
                job.done += 1
                await self._tell(job, rel)
            job.status = "done"
            log.info(
                "ocr of vault %s complete: %d read, %d from the cache, %d unchanged, %d failed in %.1f s",
                vault.id, job.read, job.cached, job.unchanged, job.failed, time.time() - job.started_at,
            )  # fmt: skip
        except asyncio.CancelledError:
            job.status = "cancelled"
            raise
        except Exception as exc:
            log.exception("ocr bulk job %s of %s failed", job.id, vault.id)
            job.status, job.error = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            job.finished_at = time.time()
            job.listeners.clear()

    async def _todo(self, vault: Vault, job: OcrJob, files: list[tuple[str, float, int]], force: bool) -> list[str]:
        """The files to read; rows of files gone from the vault under the folder are dropped."""
        prefix = f"{job.folder}/" if job.folder else ""
        rows = await self.db.fetchall(
            "SELECT path, mtime, size FROM ocr_files WHERE vault_id = ? AND (? = '' OR substr(path, 1, ?) = ?)",
            (vault.id, prefix, len(prefix), prefix),
        )
        known = {str(r[0]): (float(r[1]), int(r[2])) for r in rows}
        present = {rel for rel, _m, _s in files}
        unlisted = [rel for rel in known if rel not in present]  # gone, or not the caller's to read
        gone = await asyncio.to_thread(lambda: [rel for rel in unlisted if not vault.paths.on_disk(rel).is_file()])
        await self.reader.forget(vault.id, gone)
        todo: list[str] = []
        for rel, mtime, size in files:
            if readable_kind(rel) is None:
                continue
            if not force and known.get(rel) == (mtime, size):
                job.unchanged += 1
                continue
            todo.append(rel)
        return todo

    async def give_way(self, job: OcrJob, within: float = GIVE_WAY_S) -> None:
        """A job nobody waits on lets the calls running end first (`within` at most); a job a
        caller waits for (its listeners) goes on."""
        if self.activity is not None and not job.listeners:
            await self.activity.quiet(0.0, within=within)

    async def _tell(self, job: OcrJob, message: str) -> None:
        for listener in list(job.listeners):
            with contextlib.suppress(Exception):  # a gone or slow client does not stop the job
                await asyncio.wait_for(listener(job.done, job.total, message), 10.0)
