"""MCP tasks for consolidation runs: `run_consolidation` asked for as a task answers at once with
a task handle (`consolidation-<run id>`) and the run goes on in the background (`Plane.launch`).

`tasks/get` shows where the run is in its status message (queued behind a scheduled run, the job
it is on and the count of jobs); `tasks/result` waits for its end and gives run_consolidation's
answer (the jobs' outcomes, new / again / gone findings, what auto_apply applied). Unlike a
reindex, a run can be cancelled: `tasks/cancel` stops it (a run only reads and records its
findings in one transaction at its end, so a cancelled run leaves nothing behind) and its task
ends `cancelled`. A second task while a run goes on joins that run. Each task keeps the principal
that asked for it: for a caller a path rule restricts, its result counts only the findings about
notes it may read, as the tool's own answer does (`service.tools.plane.answers.run_out`). What job tasks
share: `service.protocol.job_tasks`.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from service.plane.findings import Shown
from service.plane.plane import Plane
from service.plane.runs import Launched
from service.policy.task_owners import owner_key
from service.protocol.job_tasks import JobTask, JobTasks, iso
from service.security.visible import unrestricted
from service.services import Services
from service.types import Principal

PREFIX = "consolidation-"


@dataclass(frozen=True)
class ConsolidationTask(JobTask):
    principal: Principal | None = None  # who asked for it: what its result may count


class ConsolidationTasks(JobTasks):
    tool = "run_consolidation"
    prefix = PREFIX

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services

    @property
    def plane(self) -> Plane:
        assert self.services.plane is not None  # the app serves these tasks only with a plane
        return self.services.plane

    def arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        if arguments.get("cancel"):  # a cancel through the tool is an ordinary call, not a task
            return arguments
        return {**arguments, "wait": False}

    def created(self, principal: Principal, answer: dict[str, Any]) -> JobTask | None:
        out = answer.get("structuredContent") if not answer.get("isError") else None
        if not isinstance(out, dict) or out.get("status") != "running" or not out.get("run_id"):
            return None
        launched = self.plane.launched.get(str(out["run_id"]))
        if launched is None:
            return None
        vault = self.services.vaults.get(launched.vault_id)
        caller = SimpleNamespace(principal=principal, vault=vault, services=self.services)
        return self.remember(
            ConsolidationTask(
                task_id=PREFIX + launched.run_id,
                job_id=launched.run_id,
                vault_id=launched.vault_id,
                caller=owner_key(principal),
                restricted=vault is None or not unrestricted(caller),
                already_running=False,
                created_at=time.time(),
                principal=principal,
            )
        )

    def shown(self, task: JobTask) -> Shown | None:
        """Which findings the task's caller is told of (None: all), as `service.tools.plane.shown_to`."""
        principal = task.principal if isinstance(task, ConsolidationTask) else None
        vault = self.services.vaults.get(task.vault_id)
        if not task.restricted:
            return None
        if principal is None or vault is None:
            return lambda paths: False  # pragma: no cover - every task is made with its principal
        guard = self.services.guard
        return lambda paths: bool(paths) and all(guard.allows(principal, vault, p, "read") for p in paths)

    def _run(self, task: JobTask) -> Launched:
        launched = self.plane.launched.get(task.job_id)
        if launched is None:  # pragma: no cover - a task is forgotten before its run
            raise MCPError(types.INVALID_PARAMS, "Failed to retrieve task: Task not found")
        return launched

    async def shape(self, task: JobTask, modern: bool) -> dict[str, Any]:
        run = self._run(task)
        where = self.plane.progress_of(run)
        if run.task.done():
            status = "cancelled" if run.task.cancelled() else ("failed" if run.task.exception() else "completed")
            ended = run.ended_at or time.time()
        else:
            status, ended = "working", time.time()
        return {
            "taskId": task.task_id,
            "status": status,
            "statusMessage": f"consolidation {run.run_id} {where}",
            "createdAt": iso(task.created_at),
            "lastUpdatedAt": iso(ended),
            **self.timing(modern),
        }

    async def result(self, task: JobTask) -> dict[str, Any]:
        """run_consolidation's answer for the ended run (an error result when it failed)."""
        from service.tools.plane.answers import RunOut, idle_out, run_out

        run = self._run(task)
        if run.task.cancelled():  # the jobs it recorded before the cancel
            out: RunOut = (
                run_out(run.result, self.shown(task), "cancelled") if run.result else idle_out(run.run_id, "cancelled")
            )
        elif run.task.exception() is not None:
            text = f"consolidation run {run.run_id} failed: {type(run.task.exception()).__name__}"
            failed = types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
            return failed.model_dump(mode="json", by_alias=True, exclude_none=True)
        else:
            out = run_out(run.task.result(), self.shown(task))
        structured = out.model_dump(mode="json")
        result = types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(structured))], structured_content=structured
        )
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def wait(self, task: JobTask) -> None:
        run = self._run(task)
        await asyncio.wait({run.task})

    async def cancel(self, task: JobTask, modern: bool) -> dict[str, Any]:
        run = self._run(task)
        if run.task.done():
            if modern:
                return {}
            shown = await self.shape(task, modern=False)
            raise MCPError(types.INVALID_PARAMS, f"Cannot cancel task: already in terminal status {shown['status']!r}")
        await self.plane.cancel(run.vault_id)
        return {} if modern else await self.shape(task, modern=False)
