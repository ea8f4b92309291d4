"""MCP tasks for plan runs: execute_plan and run_macro answered with a task handle, in both eras
(and for background jobs — reindex, consolidation runs — whose calls and task ids this module
hands to their kind: `reindex_tasks`, `consolidation_tasks`, on `job_tasks`).

A plan run in the background (`background: true`) already has everything a task needs: an id,
a status, a result, cancellation (`service.plans.runs`). This module maps it onto the protocol:

- **Protocol 2026-07-28, extension `io.modelcontextprotocol/tasks`** (advertised under
  `capabilities.extensions`). When the request's per-request capabilities
  (`_meta["io.modelcontextprotocol/clientCapabilities"].extensions`) name the extension, a
  `tools/call` of a task tool runs the plan in the background and answers
  `{"resultType": "task", "taskId", "status": "working", ...}`. `tasks/get` returns the task with
  its `result` (the `CallToolResult` get_plan_run gives) once terminal; `tasks/cancel` stops the
  run after its calls in flight (cancel_plan); `tasks/update` is an error: these tasks never
  wait for input. A request without the extension in its capabilities gets -32021.
- **Protocol 2025-11-25, core tasks** (`capabilities.tasks`: list, cancel, tools/call; the task
  tools carry `execution.taskSupport: "optional"`). A `tools/call` with `params.task` answers
  `{"task": {...}}` (CreateTaskResult); `tasks/get`, `tasks/result` (waits for the end, then the
  tool's result), `tasks/list` and `tasks/cancel` follow that revision's shapes. A `task` on a
  tool without `execution.taskSupport` is refused with -32601 (Method not found), as that
  revision says a server should. When the run ends, the requestor's connection is sent
  `notifications/tasks/status` with the full task (optional in the spec; clients poll anyway).

(The same server middleware, the one the fast paths accept, has a first `tools/list` built off the
event loop: `service.protocol.tool_lists`.)

Answering a task-augmented `tools/call` is done by a server middleware: the SDK validates a
`tools/call` handler's result against `CallToolResult` on the 2025-11-25 wire, so the task shape
must be returned around it. The call itself still runs through the whole dispatch chain (scopes,
ACL, confirmation — asked synchronously, before the task exists — throttle, audit); a call that
ends before a run starts (an invalid plan, a dry run, a refusal) is answered with its ordinary
result. The task id is the run id. A task belongs to the principal that started it *with its
grant*: the run records its owner when it opens (`service.policy.task_owners`: the subject, its
scopes and vault binding); any other principal, or the same subject with a narrowed, read-only
or differently bound token, is told the task does not exist (-32602), in lists too. `tasks/cancel`
of a plan run is `cancel_plan` through the dispatch chain, so it needs what that tool needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from datetime import UTC, datetime
from typing import Any

import mcp_types as types
from mcp.server.context import CallNext, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from service.dispatch.entry import Dispatcher, to_call_tool_result
from service.obs.sessions import caller_hash
from service.plans.journal import RunRow
from service.plans.runs import PlanRuns
from service.policy.task_owners import TaskOwners
from service.protocol.job_tasks import JobTasks
from service.protocol.tool_lists import ListedOffLoop
from service.security.scopes import holds
from service.services import Services
from service.types import Principal

EXTENSION = "io.modelcontextprotocol/tasks"
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
RELATED_TASK_META = "io.modelcontextprotocol/related-task"
PLAN_TOOLS = frozenset({"execute_plan", "run_macro"})
STATUS_NOTIFICATION = "notifications/tasks/status"
CORE_TASKS_VERSION = "2025-11-25"  # the one revision with task-augmented requests in the core protocol
MISSING_CAPABILITY = -32021
POLL_MS = 500
LIST_PAGE = 50
_STATUS = {"running": "working", "done": "completed", "failed": "completed", "cancelled": "cancelled"}


def as_created(task: dict[str, Any]) -> dict[str, Any]:
    """A task as the answer creating it shows it. 2025-11-25: "Tasks MUST begin in the working
    status when created"; a run or job that ended before that answer was built (a one-call plan on
    a loaded machine) is shown as it began, and its end follows: tasks/get, tasks/result and the
    status notification tell it."""
    if task["status"] == "working":
        return task
    return {**task, "status": "working", "statusMessage": "started", "lastUpdatedAt": task["createdAt"]}


class TaskIdParams(types.RequestParams):
    task_id: str = Field(alias="taskId", min_length=1, max_length=64, description="The task (a plan run id).")


class UpdateParams(TaskIdParams):
    input_responses: dict[str, Any] | None = Field(default=None, alias="inputResponses")


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


def job_kinds(services: Services) -> tuple[JobTasks, ...]:
    """The job tools served as tasks: reindex, consolidation runs where the app has a plane, and
    ocr_bulk where it has OCR."""
    from service.protocol.consolidation_tasks import ConsolidationTasks
    from service.protocol.ocr_tasks import OcrTasks
    from service.protocol.reindex_tasks import ReindexTasks

    plane = (ConsolidationTasks(services),) if services.plane is not None else ()
    ocr = (OcrTasks(services, services.ocr.jobs),) if services.ocr is not None else ()
    return (ReindexTasks(services), *plane, *ocr)


def declares_extension(params: Any) -> bool:
    """Whether a request's own capabilities (`_meta`) name the tasks extension."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    caps = meta.get(CAPABILITIES_META) if isinstance(meta, dict) else None
    extensions = caps.get("extensions") if isinstance(caps, dict) else None
    return isinstance(extensions, dict) and EXTENSION in extensions


class PlanTasks:
    def __init__(self, dispatcher: Dispatcher, plans: PlanRuns, jobs: tuple[JobTasks, ...] = ()) -> None:
        self.dispatcher = dispatcher
        self.plans = plans
        self.jobs = jobs
        self.owners = TaskOwners(plans.journal.db)
        self.task_tools = PLAN_TOOLS | {kind.tool for kind in jobs}
        self._watchers: set[asyncio.Task[None]] = set()  # runs whose end a connection is told of
        self.listed = ListedOffLoop(dispatcher)  # a first `tools/list` builds it off the loop

    # -- tools/call ----------------------------------------------------------------------------

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        params = ctx.params
        if ctx.method == "tools/list" and not self.listed.built:  # not on the loop (`service.protocol.tool_lists`)
            await self.listed.ready()
        if ctx.method != "tools/call" or not isinstance(params, dict):
            return await call_next(ctx)
        core = ctx.protocol_version == CORE_TASKS_VERSION and isinstance(params.get("task"), dict)
        if params.get("name") not in self.task_tools:
            if core:  # 2025-11-25: a tool without `execution.taskSupport` must not be called as a task
                raise MCPError(
                    types.METHOD_NOT_FOUND,
                    f"Method not found: {params.get('name')!r} does not support task-augmented execution",
                )
            return await call_next(ctx)
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        if not (declares_extension(params) if modern else core):
            return await call_next(ctx)
        arguments = params.get("arguments")
        if not isinstance(arguments, dict):
            return await call_next(ctx)
        plain = {k: v for k, v in params.items() if k != "task"}
        for kind in self.jobs:
            if params.get("name") == kind.tool:
                return await self._job(ctx, call_next, kind, {**plain, "arguments": kind.arguments(arguments)}, modern)
        in_background = {**plain, "arguments": {**arguments, "background": True}}
        answer = await call_next(dataclasses.replace(ctx, params=in_background))
        if not isinstance(answer, dict):
            return answer
        run = answer.get("structuredContent") if not answer.get("isError") else None
        if not isinstance(run, dict) or not run.get("run_id") or run.get("status") != "running":
            return answer  # ended before a run started (invalid, dry run, input required): the ordinary result
        row = await self.plans.journal.run(str(run["run_id"]))
        assert row is not None  # the run is durably open before execute_plan answers
        task = as_created(self._task(row, modern))
        if modern:
            meta = answer.get("_meta")
            return {"resultType": "task", **task, **({"_meta": meta} if meta else {})}
        self._status_when_done(ctx, row.id)
        return {"task": task}

    async def _job(
        self,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
        kind: JobTasks,
        params: dict[str, Any],
        modern: bool,
    ) -> Any:
        """A job tool asked for as a task: started (`wait: false`) through the chain, then a handle."""
        answer = await call_next(dataclasses.replace(ctx, params=params))
        if not isinstance(answer, dict):
            return answer
        principal, _ = self.dispatcher.principal_for(ctx)
        task = kind.created(principal, answer)
        if task is None:
            return answer  # refused, ended at once, or not a job (reindex mode embeddings): the ordinary result
        shown = as_created(await kind.shape(task, modern))
        if modern:
            meta = answer.get("_meta")
            return {"resultType": "task", **shown, **({"_meta": meta} if meta else {})}
        connection = getattr(ctx.session, "_connection", None)
        if connection is not None:
            kind.notify_when_done(connection, task)
        return {"task": shown}

    def _kind(self, task_id: str) -> JobTasks | None:
        return next((kind for kind in self.jobs if kind.owns(task_id)), None)

    def _status_when_done(self, ctx: ServerRequestContext[Any, Any], run_id: str) -> None:
        """2025-11-25: tell the requestor's connection when the task reaches its terminal status
        (`notifications/tasks/status`, the full task; on HTTP it rides the session's standalone
        stream). Best effort: the spec makes it optional, a requestor polls anyway."""
        connection = getattr(ctx.session, "_connection", None)
        if connection is None:
            return

        async def watch() -> None:
            await self.plans.wait(run_id)
            row = await self.plans.journal.run(run_id)
            if row is not None:
                with contextlib.suppress(Exception):  # a gone or stalled client must not matter
                    await asyncio.wait_for(connection.notify(STATUS_NOTIFICATION, self._task(row, False)), 2.0)

        task = asyncio.get_running_loop().create_task(watch(), name=f"task-status-{run_id}")
        self._watchers.add(task)
        task.add_done_callback(self._watchers.discard)

    # -- tasks/* -------------------------------------------------------------------------------

    async def get(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        principal, modern = self._caller(ctx)
        kind = self._kind(params.task_id)
        if kind is not None:
            job = kind.own(principal, params.task_id, "retrieve")
            shown = await kind.shape(job, modern)
            if modern and shown["status"] in ("completed", "failed", "cancelled"):
                shown["result"] = await kind.result(job)
            return shown
        row = await self._own(principal, params.task_id, "retrieve")
        task = self._task(row, modern)
        if modern and task["status"] in ("completed", "failed"):
            task.update(await self._outcome(principal, row))
        return task

    async def result(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        """2025-11-25 `tasks/result`: wait for the end of the task, then the tool's result."""
        principal, _modern = self._caller(ctx)
        kind = self._kind(params.task_id)
        if kind is not None:
            job = kind.own(principal, params.task_id, "retrieve")
            await kind.wait(job)
            done: dict[str, Any] = await kind.result(job)
            done["_meta"] = {**done.get("_meta", {}), RELATED_TASK_META: {"taskId": job.task_id}}
            return done
        row = await self._own(principal, params.task_id, "retrieve")
        await self.plans.wait(row.id)
        row = await self._own(principal, params.task_id, "retrieve")
        outcome = await self._outcome(principal, row)
        if "error" in outcome:
            raise MCPError(outcome["error"]["code"], outcome["error"]["message"])
        out: dict[str, Any] = outcome["result"]
        out["_meta"] = {**out.get("_meta", {}), RELATED_TASK_META: {"taskId": row.id}}
        return out

    async def list(self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams) -> dict[str, Any]:
        principal, modern = self._caller(ctx)
        cursor = params.cursor if params is not None else None
        if cursor is not None and not (cursor.isascii() and cursor.isdigit() and len(cursor) <= 9):
            raise MCPError(types.INVALID_PARAMS, "invalid cursor")  # a longer offset overflows SQLite's integer
        start = int(cursor) if cursor else 0
        rows = await self.plans.journal.runs_of(caller_hash(principal.subject), limit=LIST_PAGE + 1, offset=start)
        owned = await self.owners.owned(principal, [r.id for r in rows[:LIST_PAGE]])
        mine = [r for r in rows[:LIST_PAGE] if r.id in owned]  # the owner key holds the vault binding
        out: dict[str, Any] = {"tasks": [self._task(r, modern) for r in mine]}
        if start == 0:
            for kind in self.jobs:
                out["tasks"] += [await kind.shape(t, modern) for t in kind.of(principal)]
        if len(rows) > LIST_PAGE:
            out["nextCursor"] = str(start + LIST_PAGE)
        return out

    async def cancel(self, ctx: ServerRequestContext[Any, Any], params: TaskIdParams) -> dict[str, Any]:
        principal, modern = self._caller(ctx)
        kind = self._kind(params.task_id)
        if kind is not None:
            return await kind.cancel(kind.own(principal, params.task_id, "cancel"), modern)
        row = await self._own(principal, params.task_id, "cancel")  # the caller's, with its grant
        if not holds(principal.scopes, "write:vault"):  # what cancel_plan needs (the owner key implies it)
            raise MCPError(types.INVALID_PARAMS, "Cannot cancel task: cancel_plan needs scope write:vault")
        # As cancel_plan, not through the chain: a stop is no change to confirm (write_mode `confirm` would
        # ask a human, whom tasks/cancel has no session to ask) nor to preview (`dry-run`).
        live = self.plans.live.get(row.id)
        running = live is not None and live.status == "running" and self.plans.running_in_background(row.id)
        if live is not None and running:
            live.stop.set()  # the run stops after its calls in flight
        if modern:
            return {}
        if not running:
            raise MCPError(types.INVALID_PARAMS, f"Cannot cancel task: already in terminal status {row.status!r}")
        return self._task(row, modern=False)

    async def update(self, ctx: ServerRequestContext[Any, Any], params: UpdateParams) -> dict[str, Any]:
        principal, _modern = self._caller(ctx)
        row = await self._own(principal, params.task_id, "update")
        raise MCPError(
            types.INVALID_PARAMS,
            f"task {row.id} never needs input: a plan asks its one confirmation before its task starts",
        )

    # -- wiring --------------------------------------------------------------------------------

    def install(self, server: Any) -> None:
        """Serve the tasks methods on `server` (an `mcp.server.Server`) and advertise them."""
        server.extensions[EXTENSION] = {}
        server.add_request_handler("tasks/get", TaskIdParams, self.get)
        server.add_request_handler("tasks/cancel", TaskIdParams, self.cancel)
        server.add_request_handler("tasks/update", UpdateParams, self.update)
        server.add_request_handler("tasks/result", TaskIdParams, self.result)
        server.add_request_handler("tasks/list", types.PaginatedRequestParams, self.list)
        server.middleware.append(self.middleware)
        plain = server.create_initialization_options

        def with_core_tasks(*args: Any, **kwargs: Any) -> Any:
            """2025-11-25 handshakes also advertise the core `tasks` capability."""
            options = plain(*args, **kwargs)
            tasks = types.ServerTasksCapability(
                list=types.TasksListCapability(),
                cancel=types.TasksCancelCapability(),
                requests=types.ServerTasksRequestsCapability(
                    tools=types.TasksToolsCapability(call=types.TasksCallCapability())
                ),
            )
            options.capabilities = options.capabilities.model_copy(update={"tasks": tasks})
            return options

        server.create_initialization_options = with_core_tasks

    # -- helpers -------------------------------------------------------------------------------

    def _caller(self, ctx: ServerRequestContext[Any, Any]) -> tuple[Principal, bool]:
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        if modern and not declares_extension(ctx.params):
            raise MCPError(
                MISSING_CAPABILITY,
                "Missing required client capability",
                {"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
            )
        return self.dispatcher.principal_for(ctx)[0], modern

    async def _own(self, principal: Principal, task_id: str, verb: str) -> RunRow:
        """The caller's plan run `task_id` (started under the same grant); any other is reported as absent."""
        row = await self.plans.journal.run(task_id)
        if (
            row is None
            or row.kind != "plan"
            or row.caller != caller_hash(principal.subject)
            or (principal.vault is not None and row.vault_id != principal.vault)
            or not await self.owners.owns(principal, row.id)
        ):
            raise MCPError(types.INVALID_PARAMS, f"Failed to {verb} task: Task not found")
        return row

    def _status(self, row: RunRow) -> tuple[str, str]:
        live = self.plans.live.get(row.id)
        status = live.status if live is not None else row.status
        return _STATUS.get(status, "failed"), status

    def _task(self, row: RunRow, modern: bool) -> dict[str, Any]:
        status, run_status = self._status(row)
        live = self.plans.live.get(row.id)
        done, total = (live.done, live.total) if live is not None else (row.steps_done, row.steps_total)
        updated = row.ended_at or time.time()
        task: dict[str, Any] = {
            "taskId": row.id,
            "status": status,
            "statusMessage": f"plan run {run_status}: {done}/{total} calls",
            "createdAt": _iso(row.started_at),
            "lastUpdatedAt": _iso(updated),
        }
        if modern:
            task.update({"ttlMs": None, "pollIntervalMs": POLL_MS})
        else:
            task.update({"ttl": None, "pollInterval": POLL_MS})
        return task

    async def _outcome(self, principal: Principal, row: RunRow) -> dict[str, Any]:
        """A terminal task's `result` (get_plan_run's answer, through the chain) or `error`."""
        status, run_status = self._status(row)
        if status == "working":
            return {}
        if status == "failed":  # the process running it died: no result will ever come
            message = f"the server stopped while plan run {row.id} ran ({run_status}); undo_last_plan reverses it"
            return {"error": {"code": types.INTERNAL_ERROR, "message": message}}
        answer = await self.dispatcher.call(
            "get_plan_run", {"run_id": row.id, "vault": row.vault_id}, principal=principal
        )
        result = to_call_tool_result(answer).model_dump(mode="json", by_alias=True, exclude_none=True)
        return {"result": result}
