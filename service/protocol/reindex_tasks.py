"""MCP tasks for reindex jobs: a `reindex` (`sync` or `full`) asked for as a task answers at once
with a task handle and runs on; `tasks/get` shows its progress, `tasks/result` waits for the end.

`service.protocol.tasks` serves the tasks methods and hands a `reindex` call and every task id
with the `reindex-` prefix to this module, in both eras (2026-07-28 extension, 2025-11-25 core
tasks). The call runs through the whole dispatch chain with `wait: false` (scopes, ACL, audit;
a refusal is the ordinary error result, no task), which starts the job (or joins the running
one) and answers before it does any work. The task id is `reindex-<job id>`; its status message
carries the progress (`full: 120/1746 notes`, percentages for a caller some path rule
restricts, as the tool reports it); the result is the `reindex` answer for the finished job.
Mode `embeddings` is not a job of this kind: it answers at once with its state (index_status
shows its progress).

A task belongs to the principal that started it (held in memory, the last `KEPT`: after a
restart the job's row remains in index_status, the task is gone); any other principal is told it does not exist.
A reindex cannot be cancelled (each batch is one transaction; it ends soon and leaves the index
consistent): `tasks/cancel` answers so in 2025-11-25 and is acknowledged in 2026-07-28.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from service.indexer.jobs import IndexJobs, Job
from service.obs.sessions import caller_hash
from service.security.visible import unrestricted
from service.services import Services
from service.types import Principal

PREFIX = "reindex-"
POLL_MS = 500
KEPT = 200  # tasks remembered; the oldest is forgotten first (its job stays in index_status)
_STATUS = {"queued": "working", "running": "working", "done": "completed", "failed": "completed"}


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class ReindexTask:
    task_id: str
    job_id: str
    vault_id: str
    caller: str  # hashed subject
    restricted: bool  # percentages, not file counts (as the tool answered)
    already_running: bool
    created_at: float


class ReindexTasks:
    def __init__(self, services: Services) -> None:
        self.services = services
        self.tasks: dict[str, ReindexTask] = {}
        self._watchers: set[asyncio.Task[None]] = set()

    @property
    def jobs(self) -> IndexJobs:
        return self.services.index_jobs

    def owns(self, task_id: str) -> bool:
        return task_id.startswith(PREFIX)

    def created(self, principal: Principal, answer: dict[str, Any]) -> ReindexTask | None:
        """The task for a `reindex` answer (`wait: false`) that started or joined a job, else None."""
        out = answer.get("structuredContent") if not answer.get("isError") else None
        job = out.get("job") if isinstance(out, dict) else None
        if not isinstance(job, dict) or job.get("kind") not in ("sync", "full") or not job.get("id"):
            return None
        vault_id = str(out["vault"])  # type: ignore[index]
        vault = self.services.vaults.get(vault_id)
        if vault is None:
            return None
        caller = SimpleNamespace(principal=principal, vault=vault, services=self.services)
        task = ReindexTask(
            task_id=PREFIX + str(job["id"]),
            job_id=str(job["id"]),
            vault_id=vault_id,
            caller=caller_hash(principal.subject),
            restricted=not unrestricted(caller),
            already_running=bool(out.get("already_running")),  # type: ignore[union-attr]
            created_at=time.time(),
        )
        self.tasks[task.task_id] = task
        while len(self.tasks) > KEPT:
            del self.tasks[next(iter(self.tasks))]
        return task

    def own(self, principal: Principal, task_id: str, verb: str) -> ReindexTask:
        task = self.tasks.get(task_id)
        if (
            task is None
            or task.caller != caller_hash(principal.subject)
            or (principal.vault is not None and task.vault_id != principal.vault)
        ):
            raise MCPError(types.INVALID_PARAMS, f"Failed to {verb} task: Task not found")
        return task

    def of(self, principal: Principal) -> list[ReindexTask]:
        mine = caller_hash(principal.subject)
        return [
            t
            for t in self.tasks.values()
            if t.caller == mine and (principal.vault is None or t.vault_id == principal.vault)
        ]

    async def job(self, task: ReindexTask) -> Job:
        job = await self.jobs.get(task.job_id)
        if job is None:  # pragma: no cover - a job's row outlives its task
            raise MCPError(types.INTERNAL_ERROR, f"reindex job {task.job_id} is gone")
        return job

    async def shape(self, task: ReindexTask, modern: bool) -> dict[str, Any]:
        """The task as `tasks/get` and `tasks/list` show it (progress in the status message)."""
        job = await self.job(task)
        status = _STATUS.get(job.status, "failed")
        if task.restricted:
            done = f"{round(100 * job.progress / job.total) if job.total else 0}%"
        else:
            done = f"{job.progress}/{job.total if job.total is not None else '?'} notes"
        out: dict[str, Any] = {
            "taskId": task.task_id,
            "status": status,
            "statusMessage": f"reindex {job.kind} {job.status}: {done}",
            "createdAt": _iso(task.created_at),
            "lastUpdatedAt": _iso(job.finished_at or time.time()),
        }
        out.update({"ttlMs": None, "pollIntervalMs": POLL_MS} if modern else {"ttl": None, "pollInterval": POLL_MS})
        return out

    async def result(self, task: ReindexTask) -> dict[str, Any]:
        """The `reindex` answer for the finished job, as a CallToolResult."""
        from service.tools.index.status import ReindexOut, job_out

        job = await self.job(task)
        out = ReindexOut(
            vault=task.vault_id, job=job_out(job, restricted=task.restricted), already_running=task.already_running
        )
        structured = out.model_dump(mode="json")
        result = types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(structured))], structured_content=structured
        )
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def wait(self, task: ReindexTask) -> None:
        await self.jobs.wait(task.job_id)

    def notify_when_done(self, connection: Any, task: ReindexTask) -> None:
        """2025-11-25: `notifications/tasks/status` with the full task when the job ends."""

        async def watch() -> None:
            await self.wait(task)
            with contextlib.suppress(Exception):  # a gone or stalled client must not matter
                shown = await self.shape(task, modern=False)
                await asyncio.wait_for(connection.notify("notifications/tasks/status", shown), 2.0)

        watcher = asyncio.get_running_loop().create_task(watch(), name=f"task-status-{task.task_id}")
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)
