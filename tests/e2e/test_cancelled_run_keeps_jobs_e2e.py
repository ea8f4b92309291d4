"""A consolidation run cancelled part way over HTTP with the SDK client, both eras: the cancel's answer
lists the job it finished (recorded, its finding listed), plane_status names the run unfinished
with its jobs done and left (tests/tools/plane/test_cancelled_run_keeps_its_jobs.py: the rules)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from tests.conftest import e2e
from tests.e2e.calls import ok

VAULT = {"Home.md": "# Home\n\nSee [[Other]].\n", "Other.md": "# Other\n"}


class Quick:
    name = "first"
    needs: tuple[Need, ...] = ()

    async def run(self, ctx: JobContext) -> list[Finding]:
        return [Finding(job=self.name, kind="orphan", key="orphan:first", title="first", paths=["Home.md"])]


class Held:
    name = "held"
    needs: tuple[Need, ...] = ()

    def __init__(self) -> None:
        self.began = asyncio.Event()

    async def run(self, ctx: JobContext) -> list[Finding]:
        self.began.set()
        await asyncio.Event().wait()  # until cancelled
        return []


async def test_a_cancelled_run_answers_and_keeps_the_job_it_finished(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        held = Held()
        h.app.plane.jobs = (Quick(), held)
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            started = await ok(c, "run_consolidation", wait=False)
            await asyncio.wait_for(held.began.wait(), 60)
            out = await ok(c, "run_consolidation", cancel=True)
            assert out["status"] == "cancelled" and out["run_id"] == started["run_id"], out
            assert [(j["job"], j["status"], j["findings"]) for j in out["jobs"]] == [("first", "ran", 1)], out
            status = await ok(c, "plane_status")
            assert status["unfinished"]["done"] == ["first"] and status["unfinished"]["left"] == ["held"], status
            found = await ok(c, "list_findings", status="open")
            assert [f["title"] for f in found["items"]] == ["first"]


async def test_a_client_waiting_for_a_run_another_client_cancels_is_answered_cancelled(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """Two SDK clients: one waits for its run (`wait: true`), the other cancels it. The waiting one
    is answered `cancelled` with the job the run finished. Before, the run's cancellation ended the
    waiting call as if its own request had been cancelled: no answer to its request."""
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        held = Held()
        h.app.plane.jobs = (Quick(), held)
        async with Client(url, mode=mode) as waiter, Client(url, mode=mode) as other:  # type: ignore[arg-type]
            waiting = asyncio.ensure_future(waiter.call_tool("run_consolidation", {"wait": True}))
            await asyncio.wait_for(held.began.wait(), 60)
            out = await ok(other, "run_consolidation", cancel=True)
            answer = await asyncio.wait_for(waiting, 60)
            assert not answer.is_error and answer.structured_content is not None, answer
            assert answer.structured_content["status"] == "cancelled", answer.structured_content
            assert answer.structured_content["run_id"] == out["run_id"]
            assert [j["job"] for j in answer.structured_content["jobs"]] == ["first"]
