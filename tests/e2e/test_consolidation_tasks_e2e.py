"""run_consolidation as an MCP task: the call answers at once with a task handle while the run
goes on; the task shows which job it is on, ends with the run's summary, and can be cancelled
(nothing recorded) — over HTTP (real uvicorn, both protocol eras) and over stdio
(`vaultgate stdio`), with the SDK client."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.extension import ClaimContext
from mcp.shared.exceptions import MCPError

from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from tests.conftest import Harness, e2e
from tests.e2e.test_plan_tasks_e2e import (
    ANY,
    CancelTask,
    GetTask,
    ListTasks,
    TaskHandle,
    TaskParams,
    TaskResult,
    Tasks,
    client,
    raw_legacy_call,
)
from tests.keys import SECRET, claims, hs

VAULT = {
    "Memory/Bob.md": "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n- Lives in Berlin ^m-1\n",
    "Home.md": "# Home\n\nSee [[Hmoe]].\n",
}


def admin(sub: str) -> str:
    return hs(claims(sub=sub, scope="admin read:vault"))


class Slow:
    """A job that holds its run until the test lets it go (or cancels the run)."""

    name = "slow"
    needs: tuple[Need, ...] = ()

    def __init__(self) -> None:
        self.held = asyncio.Event()
        self.go = asyncio.Event()

    async def run(self, ctx: JobContext) -> list[Finding]:
        self.held.set()
        await self.go.wait()
        return []


class Ending(Tasks):
    """Polls until the task is no longer working, whatever its end, and keeps the last task seen."""

    def __init__(self) -> None:
        super().__init__()
        self.last: dict[str, Any] = {}

    async def resolve(self, handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
        self.handles.append(handle)
        with anyio.fail_after(60):
            while True:
                self.last = await ctx.session.send_request(GetTask(params=TaskParams(taskId=handle.task_id)), ANY)
                if self.last["status"] != "working":
                    break
                await anyio.sleep(0.05)
        return types.CallToolResult.model_validate(self.last["result"])


@contextlib.asynccontextmanager
async def server(make_vault: Callable[..., Path]) -> AsyncIterator[tuple[str, Harness]]:
    auth = {"mode": "jwt", "jwt_secret": SECRET}
    async with e2e(make_vault(VAULT), auth=auth, tool_facade={"mode": "flat"}) as (url, harness):
        await harness.indexed()
        yield url, harness


def _summary(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error and result.structured_content is not None, result
    run: dict[str, Any] = result.structured_content
    assert run["status"] == "done" and run["run_id"].startswith("run-"), run
    assert {j["job"] for j in run["jobs"]} >= {"duplicates", "audit"} and run["new"] >= 1, run
    return run


async def test_a_run_is_a_task_with_its_summary_and_only_its_caller_sees_it(make_vault: Callable[..., Path]) -> None:
    async with server(make_vault) as (url, h):
        tasks = Tasks()
        async with client(url, admin("alice"), "auto", tasks) as alice:
            run = _summary(await alice.call_tool("run_consolidation", {}))
            [handle] = tasks.handles  # answered at once with a handle, finished by polling
            assert handle.status == "working" and handle.task_id == f"consolidation-{run['run_id']}"
            got = await alice.session.send_request(GetTask(params=TaskParams(taskId=handle.task_id)), ANY)
            assert got["status"] == "completed" and got["statusMessage"] == f"consolidation {run['run_id']} done"
            assert got["result"]["structuredContent"] == run
            findings = (await alice.call_tool("list_findings", {"kind": "broken_link"})).structured_content
            assert findings is not None and findings["items"][0]["detail"]["target"] == "Hmoe"
            refused = await alice.call_tool("run_consolidation", {"jobs": ["nope"]})
            assert refused.is_error and len(tasks.handles) == 1  # a refusal is the ordinary result, no task
        async with client(url, admin("mallory"), "auto", Tasks()) as mallory:
            with pytest.raises(MCPError) as hidden:
                await mallory.session.send_request(GetTask(params=TaskParams(taskId=handle.task_id)), ANY)
            assert hidden.value.error.code == types.INVALID_PARAMS  # another caller's task does not exist
        async with client(url, hs(claims(sub="reader", scope="read:vault")), "auto", Tasks()) as reader:
            denied = await reader.call_tool("run_consolidation", {})
            assert denied.is_error  # the chain's scope check runs before any task exists


async def test_a_task_shows_its_job_and_is_cancelled_leaving_nothing(make_vault: Callable[..., Path]) -> None:
    async with server(make_vault) as (url, h):
        plane = h.app.plane
        first = _summary(await _plain_run(url))
        slow = Slow()
        plane.jobs = (slow,)
        tasks = Ending()
        async with client(url, admin("alice"), "auto", tasks) as alice, anyio.create_task_group() as tg:
            answers: list[types.CallToolResult] = []

            async def call() -> None:
                answers.append(await alice.call_tool("run_consolidation", {}))

            tg.start_soon(call)
            await asyncio.wait_for(slow.held.wait(), 60)
            [handle] = tasks.handles
            got = await alice.session.send_request(GetTask(params=TaskParams(taskId=handle.task_id)), ANY)
            run_id = handle.task_id.removeprefix("consolidation-")
            assert got["status"] == "working"
            assert got["statusMessage"] == f"consolidation {run_id} running slow (0/1 jobs)"
            ack = await alice.session.send_request(CancelTask(params=TaskParams(taskId=handle.task_id)), ANY)
            assert ack.get("resultType", "complete") == "complete"
        assert tasks.last["status"] == "cancelled" and answers[0].structured_content is not None
        assert answers[0].structured_content["status"] == "cancelled"
        status = (await _status(url))["structured"]
        assert status["running"] is None and status["last_run_id"] == first["run_id"]  # the cancelled run left nothing


async def test_core_tasks_of_protocol_2025_11_25_wait_list_and_cancel(make_vault: Callable[..., Path]) -> None:
    async with server(make_vault) as (url, h):
        created = await raw_legacy_call(url, admin("alice"), {"name": "run_consolidation", "arguments": {}})
        task = created["task"]
        assert task["status"] == "working" and task["taskId"].startswith("consolidation-run-")
        async with client(url, admin("alice"), "legacy") as alice:
            listed = {t.name: t for t in (await alice.list_tools()).tools}
            execution = listed["run_consolidation"].execution
            assert execution is not None and execution.task_support == "optional"
            final = await alice.session.send_request(TaskResult(params=TaskParams(taskId=task["taskId"])), ANY)
            run = _summary(types.CallToolResult.model_validate(final))
            assert task["taskId"] == f"consolidation-{run['run_id']}"
            assert final["_meta"]["io.modelcontextprotocol/related-task"]["taskId"] == task["taskId"]
            with pytest.raises(MCPError) as terminal:
                await alice.session.send_request(CancelTask(params=TaskParams(taskId=task["taskId"])), ANY)
            assert terminal.value.error.code == types.INVALID_PARAMS and "completed" in terminal.value.error.message
            slow = Slow()
            h.app.plane.jobs = (slow,)
            held = await raw_legacy_call(url, admin("alice"), {"name": "run_consolidation", "arguments": {}})
            await asyncio.wait_for(slow.held.wait(), 60)
            cancelled = await alice.session.send_request(
                CancelTask(params=TaskParams(taskId=held["task"]["taskId"])), ANY
            )
            assert cancelled["status"] == "cancelled" and cancelled["taskId"] == held["task"]["taskId"]
            listing = await alice.session.send_request(ListTasks(params=types.PaginatedRequestParams()), ANY)
            shown = {t["taskId"]: t["status"] for t in listing["tasks"]}
            assert shown == {task["taskId"]: "completed", held["task"]["taskId"]: "cancelled"}
            ended = await alice.session.send_request(TaskResult(params=TaskParams(taskId=held["task"]["taskId"])), ANY)
            assert ended["structuredContent"]["status"] == "cancelled"


async def test_a_run_is_a_task_over_stdio(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)], env=env)
    tasks = Tasks()
    async with Client(params, extensions=[tasks]) as c:
        await c.call_tool("reindex", {"mode": "sync"})  # a task too: resolved once the index is ready
        run = _summary(await c.call_tool("run_consolidation", {}))
        reindex, handle = tasks.handles
        assert handle.task_id == f"consolidation-{run['run_id']}"


async def _plain_run(url: str) -> types.CallToolResult:
    async with client(url, admin("alice"), "auto") as c:  # no extension: an ordinary call, to its end
        return await c.call_tool("run_consolidation", {"wait": True})


async def _status(url: str) -> dict[str, Any]:
    async with client(url, admin("alice"), "auto") as c:
        result = await c.call_tool("plane_status", {})
        return {"structured": result.structured_content}


async def test_two_callers_who_start_one_run_each_keep_their_task(make_vault: Callable[..., Path]) -> None:
    async with server(make_vault) as (url, h):
        slow = Slow()
        h.app.plane.jobs = (slow,)
        first = await raw_legacy_call(url, admin("alice"), {"name": "run_consolidation", "arguments": {}})
        await asyncio.wait_for(slow.held.wait(), 60)
        second = await raw_legacy_call(url, admin("bob"), {"name": "run_consolidation", "arguments": {}})
        task_id = first["task"]["taskId"]
        assert second["task"]["taskId"] == task_id  # bob joined alice's run
        slow.go.set()
        for who in ("alice", "bob"):
            async with client(url, admin(who), "legacy") as c:
                final = await c.session.send_request(TaskResult(params=TaskParams(taskId=task_id)), ANY)
                assert final["structuredContent"]["status"] == "done", who
                listing = await c.session.send_request(ListTasks(params=types.PaginatedRequestParams()), ANY)
                assert [t["taskId"] for t in listing["tasks"]] == [task_id]
