"""reindex as an MCP task: the call answers at once with a task handle while the job runs, and
the task shows its progress and ends with the reindex result — over HTTP (real uvicorn, both
protocol eras) and over stdio (`vaultgate stdio`), with the SDK client."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tests.conftest import e2e
from tests.e2e.test_plan_tasks_e2e import (
    ANY,
    CancelTask,
    GetTask,
    ListTasks,
    TaskParams,
    TaskResult,
    Tasks,
    client,
    raw_legacy_call,
)
from tests.keys import SECRET, claims, hs

NOTES = {f"N/Note {i}.md": f"# Note {i}\n\nbody {i} [[Note {i + 1}]]\n" for i in range(40)}


def admin(sub: str) -> str:
    return hs(claims(sub=sub, scope="admin read:vault"))


@contextlib.asynccontextmanager
async def server(make_vault: Callable[..., Path]) -> AsyncIterator[str]:
    auth = {"mode": "jwt", "jwt_secret": SECRET}
    async with e2e(make_vault(NOTES), auth=auth, tool_facade={"mode": "flat"}) as (url, harness):
        await harness.indexed()
        yield url


def _done(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error and result.structured_content is not None, result
    job: dict[str, Any] = result.structured_content["job"]
    assert job["status"] == "done" and job["kind"] == "full" and job["progress"] == job["total"] == 40, job
    return job


async def test_reindex_runs_as_a_task_over_http_with_the_extension(make_vault: Callable[..., Path]) -> None:
    async with server(make_vault) as url:
        tasks = Tasks()
        async with client(url, admin("alice"), "auto", tasks) as alice:
            job = _done(await alice.call_tool("reindex", {"mode": "full"}))
            [handle] = tasks.handles  # answered at once, before the job ran; finished by polling
            assert handle.status == "working" and handle.task_id == f"reindex-{job['id']}"
            got = await alice.session.send_request(GetTask(params=TaskParams(taskId=handle.task_id)), ANY)
            assert got["status"] == "completed" and got["statusMessage"] == "reindex full done: 40/40 notes"
            assert got["result"]["structuredContent"]["job"]["id"] == job["id"]
            ack = await alice.session.send_request(CancelTask(params=TaskParams(taskId=handle.task_id)), ANY)
            assert ack.get("resultType", "complete") == "complete"
            refused = await alice.call_tool("reindex", {"mode": "embeddings"})  # embeddings are off here
            assert refused.is_error and len(tasks.handles) == 1  # a refusal is the ordinary result
        async with client(url, admin("mallory"), "auto", Tasks()) as mallory:
            with pytest.raises(MCPError) as hidden:
                await mallory.session.send_request(GetTask(params=TaskParams(taskId=handle.task_id)), ANY)
            assert hidden.value.error.code == types.INVALID_PARAMS  # another caller's task does not exist


async def test_reindex_runs_as_a_core_task_of_protocol_2025_11_25(make_vault: Callable[..., Path]) -> None:
    async with server(make_vault) as url:
        created = await raw_legacy_call(url, admin("alice"), {"name": "reindex", "arguments": {"mode": "full"}})
        task = created["task"]
        assert task["status"] == "working" and task["taskId"].startswith("reindex-")
        assert task["statusMessage"].startswith("reindex full queued")
        async with client(url, admin("alice"), "legacy") as alice:
            listed = {t.name: t for t in (await alice.list_tools()).tools}
            assert listed["reindex"].execution is not None and listed["reindex"].execution.task_support == "optional"
            final = await alice.session.send_request(TaskResult(params=TaskParams(taskId=task["taskId"])), ANY)
            job = _done(types.CallToolResult.model_validate(final))
            assert task["taskId"] == f"reindex-{job['id']}"
            assert final["_meta"]["io.modelcontextprotocol/related-task"]["taskId"] == task["taskId"]
            listing = await alice.session.send_request(ListTasks(params=types.PaginatedRequestParams()), ANY)
            assert [t["taskId"] for t in listing["tasks"]] == [task["taskId"]]
            with pytest.raises(MCPError) as no_cancel:
                await alice.session.send_request(CancelTask(params=TaskParams(taskId=task["taskId"])), ANY)
            assert no_cancel.value.error.code == types.INVALID_PARAMS
            plain = await alice.call_tool("reindex", {"mode": "full"})  # no task asked: it waits, as before
            assert _done(plain)["id"] != job["id"]


async def test_reindex_runs_as_a_task_over_stdio(make_vault: Callable[..., Path]) -> None:
    root = make_vault(NOTES)
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)], env=env)
    tasks = Tasks()
    async with Client(params, extensions=[tasks]) as c:
        job = _done(await c.call_tool("reindex", {"mode": "full"}))
        [handle] = tasks.handles
        assert handle.status == "working" and handle.task_id == f"reindex-{job['id']}"
