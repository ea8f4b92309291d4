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

What every job task shares (ownership, the last `KEPT` held in memory, the end notification) is
`service.protocol.job_tasks`; after a restart the job's row remains in index_status, the task is gone.
A reindex cannot be cancelled (each batch is one transaction; it ends soon and leaves the index
consistent): `tasks/cancel` answers so in 2025-11-25 and is acknowledged in 2026-07-28.
"""

from __future__ import annotations

import json
import time
from types import SimpleNamespace
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from service.indexer.jobs import IndexJobs, Job
from service.policy.task_owners import owner_key
from service.protocol.job_tasks import JobTask, JobTasks, iso
from service.security.visible import unrestricted
from service.services import Services
from service.types import Principal

PREFIX = "reindex-"
_STATUS = {"queued": "working", "running": "working", "done": "completed", "failed": "completed"}


class ReindexTasks(JobTasks):
    tool = "reindex"
    prefix = PREFIX

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services

    @property
    def jobs(self) -> IndexJobs:
        return self.services.index_jobs

    def created(self, principal: Principal, answer: dict[str, Any]) -> JobTask | None:
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
        return self.remember(
            JobTask(
                task_id=PREFIX + str(job["id"]),
                job_id=str(job["id"]),
                vault_id=vault_id,
                caller=owner_key(principal),
                restricted=not unrestricted(caller),
                already_running=bool(out.get("already_running")),  # type: ignore[union-attr]
                created_at=time.time(),
            )
        )

    async def job(self, task: JobTask) -> Job:
        job = await self.jobs.get(task.job_id)
        if job is None:  # pragma: no cover - a job's row outlives its task
            raise MCPError(types.INTERNAL_ERROR, f"reindex job {task.job_id} is gone")
        return job

    async def shape(self, task: JobTask, modern: bool) -> dict[str, Any]:
        job = await self.job(task)
        status = _STATUS.get(job.status, "failed")
        if task.restricted:
            done = f"{round(100 * job.progress / job.total) if job.total else 0}%"
        else:
            done = f"{job.progress}/{job.total if job.total is not None else '?'} notes"
        return {
            "taskId": task.task_id,
            "status": status,
            "statusMessage": f"reindex {job.kind} {job.status}: {done}",
            "createdAt": iso(task.created_at),
            "lastUpdatedAt": iso(job.finished_at or time.time()),
            **self.timing(modern),
        }

    async def result(self, task: JobTask) -> dict[str, Any]:
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

    async def wait(self, task: JobTask) -> None:
        await self.jobs.wait(task.job_id)

    async def cancel(self, task: JobTask, modern: bool) -> dict[str, Any]:
        if modern:
            return {}
        raise MCPError(
            types.INVALID_PARAMS, "Cannot cancel task: a reindex runs to its end (the index stays consistent)"
        )
