"""Plan runs as MCP tasks, end to end: real uvicorn, the SDK client, both protocol eras, two callers.

- 2026-07-28: the SDK client declares the `io.modelcontextprotocol/tasks` extension (a client
  extension claiming `resultType: "task"` whose resolver polls `tasks/get`), so execute_plan
  answers a task handle and the call still ends with the plan's result.
- 2025-11-25: core tasks, sent as raw requests through the SDK session (its client has no tasks
  API): the capability and `execution.taskSupport`, a `tools/call` with `task`, `tasks/get`,
  `tasks/result`, `tasks/list`, `tasks/cancel`.
- Per principal: the task of one caller is absent for another (tasks/get, tasks/list), JWTs.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from pydantic import ConfigDict, Field, TypeAdapter

from service.plans.journal import Journal
from service.protocol.tasks import EXTENSION
from tests.conftest import e2e
from tests.keys import SECRET, claims, hs

PLAN = {"goal": "two notes", "steps": [{"id": "a", "tool": "create_note", "args": {"path": "T/A", "content": "a"}}]}
# The same plan onto a note it has not made yet (T/A exists once PLAN ran: a dry run of PLAN would be refused).
OTHER_PLAN = {"goal": "again", "steps": [{"id": "a", "tool": "create_note", "args": {"path": "T/A2", "content": "a"}}]}
WRITER = "read:vault write:vault delete:vault"
ANY = TypeAdapter(dict[str, Any])


class TaskParams(types.RequestParams):
    task_id: str = Field(alias="taskId")


class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param = "taskId"


class CancelTask(types.Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskParams
    name_param = "taskId"


class UpdateTask(types.Request[TaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: TaskParams
    name_param = "taskId"


class TaskResult(types.Request[TaskParams, Literal["tasks/result"]]):
    method: Literal["tasks/result"] = "tasks/result"
    params: TaskParams


class ListTasks(types.Request[types.PaginatedRequestParams, Literal["tasks/list"]]):
    method: Literal["tasks/list"] = "tasks/list"
    params: types.PaginatedRequestParams


class TaskHandle(types.Result):
    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = Field(default="task", alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str


class Tasks(ClientExtension):
    """A minimal tasks client: claims `resultType: "task"` and polls until the task ends."""

    identifier = EXTENSION

    def __init__(self) -> None:
        self.handles: list[TaskHandle] = []

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self.resolve)]

    async def resolve(self, handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
        self.handles.append(handle)
        # ocr_bulk's task (test_ocr_tasks_e2e) reads two images: 9.4 s of CPU (onnxruntime), 39 s of wall
        # time at load 19 on 2 cores and over 150 s once at load ~12 (the OCR worker runs at nice +10,
        # behind the test workers); the bound is for a hang, not the work.
        with anyio.fail_after(480):
            while True:
                task = await ctx.session.send_request(GetTask(params=TaskParams(taskId=handle.task_id)), ANY)
                if task["status"] != "working":
                    break
                await anyio.sleep(task.get("pollIntervalMs", 100) / 1000)
        assert task["status"] == "completed", task
        return types.CallToolResult.model_validate(task["result"])


@contextlib.asynccontextmanager
async def client(url: str, token: str, mode: str, *extensions: ClientExtension) -> AsyncIterator[Client]:
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, extensions=list(extensions)) as c:  # type: ignore[arg-type]
            yield c


def token(sub: str) -> str:
    return hs(claims(sub=sub, scope=WRITER))


async def raw_legacy_call(url: str, bearer: str, params: dict[str, Any]) -> dict[str, Any]:
    """One 2025-11-25 session over plain HTTP: initialize, then a task-augmented tools/call."""
    async with legacy_session(url, bearer) as (http, session):
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {**params, "task": {"ttl": 60_000}}}
        message = _message(await http.post(url, json=call, headers=session))
    assert "result" in message, message
    out: dict[str, Any] = message["result"]
    return out


@contextlib.asynccontextmanager
async def server(make_vault: Callable[..., Path]) -> AsyncIterator[tuple[str, Path]]:
    root = make_vault({"Welcome.md": "# Welcome\n"})
    auth = {"mode": "jwt", "jwt_secret": SECRET}
    async with e2e(root, auth=auth, tool_facade={"mode": "flat"}) as (url, _harness):  # every tool listed
        yield url, root


async def test_a_plan_runs_as_a_task_with_the_extension(make_vault: Callable[..., Path]) -> None:
    async with server(make_vault) as (url, root):
        tasks = Tasks()
        async with client(url, token("alice"), "auto", tasks) as alice:
            assert EXTENSION in (alice.server_capabilities.extensions or {})
            result = await alice.call_tool("execute_plan", {"plan": PLAN})
            assert not result.is_error and result.structured_content is not None
            assert result.structured_content["status"] == "done" and (root / "T/A.md").is_file()
            [handle] = tasks.handles  # answered with a task handle, finished by polling tasks/get
            # created working, even when the one-step run ended before the handle was built (see below)
            assert handle.status == "working" and handle.task_id == result.structured_content["run_id"]
            ack = await alice.session.send_request(CancelTask(params=TaskParams(taskId=handle.task_id)), ANY)
            assert ack.get("resultType", "complete") == "complete"  # acknowledged; the task had ended
            with pytest.raises(MCPError) as no_input:
                await alice.session.send_request(UpdateTask(params=TaskParams(taskId=handle.task_id)), ANY)
            assert (
                no_input.value.error.code == types.INVALID_PARAMS
                and "never needs input" in no_input.value.error.message
            )
            invalid = await alice.call_tool("execute_plan", {"plan": {"goal": "g", "steps": []}})
            assert invalid.is_error  # ended before any run: the ordinary result, no task
            assert len(tasks.handles) == 1
        async with client(url, token("mallory"), "auto", Tasks()) as mallory:
            with pytest.raises(MCPError) as hidden:
                await mallory.session.send_request(GetTask(params=TaskParams(taskId=handle.task_id)), ANY)
            assert hidden.value.error.code == types.INVALID_PARAMS  # another caller's task does not exist
        async with client(url, token("alice"), "auto") as plain:  # no extension declared
            result = await plain.call_tool("execute_plan", {"plan": OTHER_PLAN, "dry_run": True})
            assert not result.is_error and result.structured_content is not None  # an ordinary result
            with pytest.raises(MCPError) as missing:
                await plain.session.send_request(GetTask(params=TaskParams(taskId=handle.task_id)), ANY)
            assert missing.value.error.code == -32021


async def test_core_tasks_of_protocol_2025_11_25(make_vault: Callable[..., Path]) -> None:
    async with server(make_vault) as (url, root):
        async with client(url, token("alice"), "legacy") as alice:
            assert alice.protocol_version == "2025-11-25"
            caps = alice.server_capabilities
            assert caps.tasks is not None and caps.tasks.requests is not None and caps.tasks.cancel is not None
            listed = {t.name: t for t in (await alice.list_tools()).tools}
            assert listed["execute_plan"].execution is not None
            assert listed["execute_plan"].execution.task_support == "optional"
            assert listed["read_note"].execution is None
            # The SDK client validates a tools/call answer as a CallToolResult on this wire, so the
            # task-augmented call goes as a raw request (same caller, its own session).
            created = await raw_legacy_call(url, token("alice"), {"name": "execute_plan", "arguments": {"plan": PLAN}})
            task = created["task"]
            assert task["status"] == "working" and "pollInterval" in task  # "Tasks MUST begin in the working status"
            final = await alice.session.send_request(TaskResult(params=TaskParams(taskId=task["taskId"])), ANY)
            assert final["structuredContent"]["status"] == "done" and (root / "T/A.md").is_file()
            assert final["_meta"]["io.modelcontextprotocol/related-task"]["taskId"] == task["taskId"]
            got = await alice.session.send_request(GetTask(params=TaskParams(taskId=task["taskId"])), ANY)
            assert got["status"] == "completed" and got["taskId"] == task["taskId"]
            listing = await alice.session.send_request(ListTasks(params=types.PaginatedRequestParams()), ANY)
            assert [t["taskId"] for t in listing["tasks"]] == [task["taskId"]]
            with pytest.raises(MCPError) as terminal:
                await alice.session.send_request(CancelTask(params=TaskParams(taskId=task["taskId"])), ANY)
            assert terminal.value.error.code == types.INVALID_PARAMS
            plain = await alice.call_tool("execute_plan", {"plan": OTHER_PLAN, "dry_run": True})
            assert plain.structured_content is not None and plain.structured_content["status"] == "dry-run"
        async with client(url, token("mallory"), "legacy") as mallory:
            listing = await mallory.session.send_request(ListTasks(params=types.PaginatedRequestParams()), ANY)
            assert listing["tasks"] == []
            with pytest.raises(MCPError) as hidden:
                await mallory.session.send_request(GetTask(params=TaskParams(taskId=task["taskId"])), ANY)
            assert hidden.value.error.code == types.INVALID_PARAMS


@contextlib.asynccontextmanager
async def legacy_session(url: str, bearer: str) -> AsyncIterator[tuple[httpx2.AsyncClient, dict[str, str]]]:
    """A raw 2025-11-25 session over plain HTTP: the client and the headers of its requests."""
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "authorization": f"Bearer {bearer}",
    }
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    async with httpx2.AsyncClient(timeout=60) as http:
        opened = await http.post(
            url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}, headers=headers
        )
        session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
        yield http, session


def _message(answer: Any) -> dict[str, Any]:
    text = answer.text
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        text = [line[5:] for line in text.splitlines() if line.startswith("data:")][-1]
    out: dict[str, Any] = json.loads(text)
    return out


async def test_a_task_on_a_tool_without_task_support_is_method_not_found(make_vault: Callable[..., Path]) -> None:
    """2025-11-25, tool-level negotiation: `execution.taskSupport` absent means forbidden, and a
    task-augmented call of such a tool gets -32601; the tool did not run."""
    async with server(make_vault) as (url, root), legacy_session(url, token("alice")) as (http, session):
        for name, arguments in (
            ("create_note", {"path": "T/B", "content": "b"}),
            ("read_note", {"path": "Welcome"}),
            ("no_such_tool", {}),
        ):
            params = {"name": name, "arguments": arguments, "task": {"ttl": 60_000}}
            call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
            message = _message(await http.post(url, json=call, headers=session))
            assert "result" not in message and message["error"]["code"] == types.METHOD_NOT_FOUND, message
        assert not (root / "T/B.md").exists()
        plain = {"name": "create_note", "arguments": {"path": "T/B", "content": "b"}}  # without `task`: runs
        message = _message(
            await http.post(
                url, json={"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": plain}, headers=session
            )
        )
        assert message["result"]["isError"] is False and (root / "T/B.md").is_file()


async def test_the_end_of_a_task_is_notified_with_its_status(make_vault: Callable[..., Path]) -> None:
    """2025-11-25 `notifications/tasks/status`: when the plan run ends, the requestor's session
    gets the full task on its standalone stream (the GET stream the client opened)."""
    async with server(make_vault) as (url, root), legacy_session(url, token("alice")) as (http, session):
        seen: list[dict[str, Any]] = []
        listening = anyio.Event()

        async def listen() -> None:
            async with http.stream("GET", url, headers={**session, "accept": "text/event-stream"}) as stream:
                assert stream.status_code == 200
                listening.set()
                async for line in stream.aiter_lines():
                    if line.startswith("data:"):
                        seen.append(json.loads(line[5:]))
                        if seen[-1].get("method") == "notifications/tasks/status":
                            return

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(listen)
                await listening.wait()
                params = {"name": "execute_plan", "arguments": {"plan": PLAN}, "task": {"ttl": 60_000}}
                call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
                task = _message(await http.post(url, json=call, headers=session))["result"]["task"]
                assert task["status"] == "working"  # ended already or not, the notification follows
        [note] = [m for m in seen if m.get("method") == "notifications/tasks/status"]
        status = note["params"]
        assert status["taskId"] == task["taskId"] and status["status"] == "completed"
        assert {"createdAt", "lastUpdatedAt", "ttl", "pollInterval", "statusMessage"} <= set(status)
        assert (root / "T/A.md").is_file()


async def test_a_run_that_ends_before_its_handle_is_created_working(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """2025-11-25: "Tasks MUST begin in the working status when created." The handle is built after
    execute_plan answers and an awaited read of the run's row, so a one-call plan can end first
    (seen at load 15 on 2 cores: the creation answered `completed`). Here that read waits for the
    run's end, every time: both eras still create the task `working`, and its end follows."""
    root = make_vault({"Welcome.md": "# Welcome\n"})
    auth = {"mode": "jwt", "jwt_secret": SECRET}
    async with e2e(root, auth=auth, tool_facade={"mode": "flat"}) as (url, harness):
        real_run = Journal.run
        waited: set[str] = set()

        async def run_after_its_end(self: Journal, run_id: str) -> Any:
            if run_id not in waited:
                waited.add(run_id)
                await harness.app.services.plans.wait(run_id)
            return await real_run(self, run_id)

        monkeypatch.setattr(Journal, "run", run_after_its_end)
        created = await raw_legacy_call(url, token("alice"), {"name": "execute_plan", "arguments": {"plan": PLAN}})
        task = created["task"]
        assert task["status"] == "working" and task["lastUpdatedAt"] == task["createdAt"]
        async with legacy_session(url, token("alice")) as (http, session):
            get = {"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": task["taskId"]}}
            assert _message(await http.post(url, json=get, headers=session))["result"]["status"] == "completed"
        tasks = Tasks()
        async with client(url, token("alice"), "auto", tasks) as alice:
            result = await alice.call_tool("execute_plan", {"plan": OTHER_PLAN})
        [handle] = tasks.handles
        assert handle.status == "working" and result.structured_content is not None
        assert result.structured_content["status"] == "done" and (root / "T/A2.md").is_file()
