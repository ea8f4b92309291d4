"""run_consolidation as an MCP task, cancelled part way over HTTP with the SDK client: the task's
result (`tasks/result`, as the call's answer) is `cancelled` with the job the run finished before
the cancel, recorded (its finding listed), and plane_status names the run unfinished. Before, a
cancelled task's result had no job and nothing was recorded
(tests/e2e/test_consolidation_tasks_e2e.py: the task itself)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import anyio
import mcp_types as types

from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from tests.e2e.test_consolidation_tasks_e2e import Ending, Slow, admin, server
from tests.e2e.test_plan_tasks_e2e import ANY, CancelTask, TaskParams, client


class First:
    name = "first"
    needs: tuple[Need, ...] = ()

    async def run(self, ctx: JobContext) -> list[Finding]:
        return [Finding(job=self.name, kind="orphan", key="orphan:first", title="first", paths=["Home.md"])]


async def test_a_cancelled_task_answers_the_job_its_run_finished(make_vault: Callable[..., Path]) -> None:
    async with server(make_vault) as (url, h):
        slow = Slow()
        h.app.plane.jobs = (First(), slow)
        tasks = Ending()
        async with client(url, admin("alice"), "auto", tasks) as alice:
            answers: list[types.CallToolResult] = []
            async with anyio.create_task_group() as tg:

                async def call() -> None:
                    answers.append(await alice.call_tool("run_consolidation", {}))

                tg.start_soon(call)
                await asyncio.wait_for(slow.held.wait(), 60)
                [handle] = tasks.handles
                await alice.session.send_request(CancelTask(params=TaskParams(taskId=handle.task_id)), ANY)
            out = answers[0].structured_content
            assert tasks.last["status"] == "cancelled" and out is not None, answers
            assert out["status"] == "cancelled" and out["new"] == 1, out
            assert [(j["job"], j["status"], j["findings"]) for j in out["jobs"]] == [("first", "ran", 1)], out
            status = (await alice.call_tool("plane_status", {})).structured_content
            assert status is not None and status["unfinished"]["done"] == ["first"], status
