"""What the MCP tasks of background jobs share: a tool whose call starts (or joins) a job and
answers at once is run as a task whose id names the job (`reindex-<job id>`,
`consolidation-<run id>`).

`service.protocol.tasks` serves the tasks methods for plan runs and hands every call of a job
tool (`tool`) and every task id with a job kind's prefix to that kind (`JobTasks`). The call runs
through the whole dispatch chain with the arguments `arguments` gives (`wait: false`: scopes,
ACL, audit; a refusal is the ordinary error result, no task), and `created` turns its answer
into a task. A task belongs to the principal that started it, with its grant (`owner_key`: the
subject, its scopes and vault binding; held in memory, the last `KEPT`); any other principal,
or the same subject with a narrowed, read-only or differently bound token, is told it does not
exist; two principals that start the same job (the second joins it) each hold a task of their
own with the same id. When the job ends, a 2025-11-25 requestor's connection is sent
`notifications/tasks/status` with the task.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from service.policy.task_owners import owner_key
from service.types import Principal

KEPT = 200  # tasks remembered per kind; the oldest is forgotten first (its job stays visible in its tools)
POLL_MS = 500


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class JobTask:
    task_id: str
    job_id: str
    vault_id: str
    caller: str  # owner_key: the subject with its grant (scopes, vault binding)
    restricted: bool  # a path rule restricts the caller (percentages, not file counts)
    already_running: bool
    created_at: float


class JobTasks:
    """One kind of job task; subclasses give `tool`, `prefix` and the job-specific methods."""

    tool = ""
    prefix = ""

    def __init__(self) -> None:
        self.tasks: dict[tuple[str, str], JobTask] = {}  # (task id, caller): two callers may join one job
        self._watchers: set[asyncio.Task[None]] = set()

    # -- the job-specific part ------------------------------------------------------------------

    def created(self, principal: Principal, answer: dict[str, Any]) -> JobTask | None:
        """The task for the tool's answer when it started or joined a job, else None."""
        raise NotImplementedError

    async def shape(self, task: JobTask, modern: bool) -> dict[str, Any]:
        """The task as `tasks/get` and `tasks/list` show it (progress in the status message)."""
        raise NotImplementedError

    async def result(self, task: JobTask) -> dict[str, Any]:
        """The finished job's CallToolResult."""
        raise NotImplementedError

    async def wait(self, task: JobTask) -> None:
        raise NotImplementedError

    async def cancel(self, task: JobTask, modern: bool) -> dict[str, Any]:
        """`tasks/cancel`: `{}` (2026-07-28) or the task (2025-11-25); an MCPError if it cannot be."""
        raise NotImplementedError

    # -- shared ---------------------------------------------------------------------------------

    def arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {**arguments, "wait": False}

    def owns(self, task_id: str) -> bool:
        return task_id.startswith(self.prefix)

    def remember(self, task: JobTask) -> JobTask:
        self.tasks[(task.task_id, task.caller)] = task
        while len(self.tasks) > KEPT:
            del self.tasks[next(iter(self.tasks))]
        return task

    def own(self, principal: Principal, task_id: str, verb: str) -> JobTask:
        task = self.tasks.get((task_id, owner_key(principal)))
        if task is None or (principal.vault is not None and task.vault_id != principal.vault):
            raise MCPError(types.INVALID_PARAMS, f"Failed to {verb} task: Task not found")
        return task

    def of(self, principal: Principal) -> list[JobTask]:
        mine = owner_key(principal)
        return [
            t
            for t in self.tasks.values()
            if t.caller == mine and (principal.vault is None or t.vault_id == principal.vault)
        ]

    @staticmethod
    def timing(modern: bool) -> dict[str, Any]:
        return {"ttlMs": None, "pollIntervalMs": POLL_MS} if modern else {"ttl": None, "pollInterval": POLL_MS}

    def notify_when_done(self, connection: Any, task: JobTask) -> None:
        """2025-11-25: `notifications/tasks/status` with the full task when the job ends."""

        async def watch() -> None:
            with contextlib.suppress(Exception):  # a gone or stalled client must not matter
                await self.wait(task)
                shown = await self.shape(task, modern=False)
                await asyncio.wait_for(connection.notify("notifications/tasks/status", shown), 2.0)

        watcher = asyncio.get_running_loop().create_task(watch(), name=f"task-status-{task.task_id}")
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)
