"""MCP tasks for ocr_bulk: a start asked for as a task answers at once with a task handle
(`ocr-<job id>`) while the job reads the files in the background (`service.ocr.bulk`).

`tasks/get` shows the job's progress in its status message (`ocr running: 3/12 files`, a
percentage for a caller some path rule restricts); `tasks/result` waits for the end and gives
ocr_bulk's answer for the job; `tasks/cancel` stops the job (the files read so far stay read) and
the task ends `cancelled`. A start while a job runs joins it; `action: status` and
`action: cancel` are ordinary calls, never tasks. What job tasks share:
`service.protocol.job_tasks`.
"""

from __future__ import annotations

import json
import time
from types import SimpleNamespace
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from service.ocr.bulk import OcrJob, OcrJobs
from service.policy.task_owners import owner_key
from service.protocol.job_tasks import JobTask, JobTasks, iso
from service.security.visible import unrestricted
from service.services import Services
from service.types import Principal

PREFIX = "ocr-"
_STATUS = {"running": "working", "done": "completed", "failed": "failed", "cancelled": "cancelled"}


class OcrTasks(JobTasks):
    tool = "ocr_bulk"
    prefix = PREFIX

    def __init__(self, services: Services, jobs: OcrJobs) -> None:
        super().__init__()
        self.services = services
        self.jobs = jobs

    def arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        if arguments.get("action", "start") != "start":  # status and cancel answer at once
            return arguments
        return {**arguments, "wait": False}

    def created(self, principal: Principal, answer: dict[str, Any]) -> JobTask | None:
        out = answer.get("structuredContent") if not answer.get("isError") else None
        shown = out.get("job") if isinstance(out, dict) else None
        job = self.jobs.by_id.get(str(shown.get("id"))) if isinstance(shown, dict) else None
        if job is None or job.status != "running":
            return None  # nothing to read, or refused: the ordinary result
        vault = self.services.vaults.get(job.vault_id)
        if vault is None:  # pragma: no cover - a job's vault outlives its call
            return None
        caller = SimpleNamespace(principal=principal, vault=vault, services=self.services)
        return self.remember(
            JobTask(
                task_id=PREFIX + job.id,
                job_id=job.id,
                vault_id=job.vault_id,
                caller=owner_key(principal),
                restricted=not unrestricted(caller),
                already_running=bool(out.get("already_running")),  # type: ignore[union-attr]
                created_at=time.time(),
            )
        )

    def _job(self, task: JobTask) -> OcrJob:
        job = self.jobs.by_id.get(task.job_id)
        if job is None:  # forgotten: more jobs ran since
            raise MCPError(types.INVALID_PARAMS, "Failed to retrieve task: Task not found")
        return job

    async def shape(self, task: JobTask, modern: bool) -> dict[str, Any]:
        job = self._job(task)
        if task.restricted:
            done = f"{round(100 * job.done / job.total) if job.total else 100}%"
        else:
            done = f"{job.done}/{job.total} files"
        return {
            "taskId": task.task_id,
            "status": _STATUS[job.status],
            "statusMessage": f"ocr {job.status}: {done}",
            "createdAt": iso(task.created_at),
            "lastUpdatedAt": iso(job.finished_at or time.time()),
            **self.timing(modern),
        }

    async def result(self, task: JobTask) -> dict[str, Any]:
        """ocr_bulk's answer for the ended job (failures named only to an unrestricted caller)."""
        from service.tools.obsidian.ocr import OcrBulkOut, job_out

        job = self._job(task)
        out = OcrBulkOut(job=job_out(lambda _path: not task.restricted, job), already_running=task.already_running)
        structured = out.model_dump(mode="json")
        result = types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(structured))], structured_content=structured
        )
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def wait(self, task: JobTask) -> None:
        await self.jobs.wait(self._job(task))

    async def cancel(self, task: JobTask, modern: bool) -> dict[str, Any]:
        job = self._job(task)
        if job.status != "running":
            if modern:
                return {}
            status = _STATUS[job.status]
            raise MCPError(types.INVALID_PARAMS, f"Cannot cancel task: already in terminal status {status!r}")
        await self.jobs.cancel(job.vault_id)
        return {} if modern else await self.shape(task, modern=False)
