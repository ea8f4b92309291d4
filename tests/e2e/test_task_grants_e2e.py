"""A task belongs to its caller *with its grant*, end to end (real uvicorn, JWTs, the SDK client).

Two tokens of the same subject: the one that started the task (a writer's plan run, an admin's
reindex) and a token with another grant (read-only, or narrowed to a folder). For the second the
task does not exist: tasks/list leaves it out, tasks/get, tasks/result and tasks/cancel answer
-32602 — it cannot read the admin's vault-wide counts nor stop the writer's run, which the
cancel_plan tool would refuse it anyway. The owner still sees and ends its task.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import mcp_types as types
import pytest
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

NOTES = {"Welcome.md": "# Welcome\n", **{f"N/Note {i}.md": f"# Note {i}\n[[Note {i + 1}]]\n" for i in range(12)}}
PLAN = {"goal": "one note", "steps": [{"id": "a", "tool": "create_note", "args": {"path": "T/A", "content": "a"}}]}


def bearer(scope: str) -> str:
    return hs(claims(sub="agent", scope=scope))  # the same subject for every token


@contextlib.asynccontextmanager
async def server(make_vault: Callable[..., Path]) -> AsyncIterator[tuple[str, Path]]:
    root = make_vault(NOTES)
    auth = {"mode": "jwt", "jwt_secret": SECRET}
    async with e2e(root, auth=auth, tool_facade={"mode": "flat"}) as (url, harness):
        await harness.indexed()
        yield url, root


async def _absent_for(url: str, scope: str, task_id: str) -> None:
    """For a token of `scope`, the task is not listed and every tasks method says it does not exist."""
    async with client(url, bearer(scope), "legacy") as other:
        listing = await other.session.send_request(ListTasks(params=types.PaginatedRequestParams()), ANY)
        assert task_id not in [t["taskId"] for t in listing["tasks"]]
        for request in (GetTask, TaskResult, CancelTask):
            with pytest.raises(MCPError) as hidden:
                await other.session.send_request(request(params=TaskParams(taskId=task_id)), ANY)  # type: ignore[arg-type]
            assert hidden.value.error.code == types.INVALID_PARAMS, request
    async with client(url, bearer(scope), "auto", Tasks()) as modern:  # 2026-07-28 acknowledges a cancel it may do
        with pytest.raises(MCPError) as refused:
            await modern.session.send_request(CancelTask(params=TaskParams(taskId=task_id)), ANY)
        assert refused.value.error.code == types.INVALID_PARAMS


async def test_a_plan_run_task_is_not_the_task_of_a_read_only_token_of_the_same_subject(
    make_vault: Callable[..., Path],
) -> None:
    async with server(make_vault) as (url, root):
        writer = "read:vault write:vault"
        created = await raw_legacy_call(url, bearer(writer), {"name": "execute_plan", "arguments": {"plan": PLAN}})
        task_id = created["task"]["taskId"]
        async with client(url, bearer(writer), "legacy") as owner:
            done = await owner.session.send_request(TaskResult(params=TaskParams(taskId=task_id)), ANY)
            assert done["structuredContent"]["status"] == "done" and (root / "T/A.md").is_file()
        await _absent_for(url, "read:vault", task_id)
        await _absent_for(url, "read:vault write:vault/N/**", task_id)
        async with client(url, bearer(writer), "legacy") as owner:  # the owner's grant still holds it
            listing = await owner.session.send_request(ListTasks(params=types.PaginatedRequestParams()), ANY)
            assert [t["taskId"] for t in listing["tasks"]] == [task_id]


async def test_an_admin_reindex_task_is_not_the_task_of_a_narrowed_token_of_the_same_subject(
    make_vault: Callable[..., Path],
) -> None:
    async with server(make_vault) as (url, _root):
        created = await raw_legacy_call(url, bearer("admin"), {"name": "reindex", "arguments": {"mode": "full"}})
        task_id = created["task"]["taskId"]
        async with client(url, bearer("admin"), "legacy") as owner:
            done = await owner.session.send_request(TaskResult(params=TaskParams(taskId=task_id)), ANY)
            assert done["structuredContent"]["job"]["status"] == "done"
        await _absent_for(url, "read:vault/N/**", task_id)
        await _absent_for(url, "read:vault", task_id)
        async with client(url, bearer("admin"), "legacy") as owner:
            got = await owner.session.send_request(GetTask(params=TaskParams(taskId=task_id)), ANY)
            assert got["status"] == "completed"
