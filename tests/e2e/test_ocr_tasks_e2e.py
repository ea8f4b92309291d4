"""ocr_bulk as an MCP task over HTTP (real uvicorn, the SDK client): the call answers at once with
a task handle (`ocr-<job id>`) while the job reads the files; the task shows its progress and
ends with ocr_bulk's answer (2026-07-28 extension), and `tasks/cancel` stops a running job
(2025-11-25 core tasks)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import e2e
from tests.e2e.test_plan_tasks_e2e import ANY, CancelTask, GetTask, TaskParams, Tasks, client, raw_legacy_call
from tests.keys import SECRET, claims, hs
from tests.tools.obsidian.ocr_images import needs_engine, ocr_held, text_png

pytestmark = needs_engine


def reader(sub: str) -> str:
    return hs(claims(sub=sub, scope="read:vault"))


@contextlib.asynccontextmanager
async def server(make_vault: Callable[..., Path], images: int) -> AsyncIterator[str]:
    files: dict[str, str | bytes] = {f"scans/{i}.png": text_png(f"Receipt number {i}") for i in range(images)}
    auth = {"mode": "jwt", "jwt_secret": SECRET}
    # [ocr] timeout_s, 60 s an image by default: at load ~20 both readings passed it in a CI run (the
    # job ended "done" with 0 of 2 read); these tests are about the task, not the reading's speed.
    ocr = {"timeout_s": 600.0}
    async with e2e(make_vault(files), auth=auth, tool_facade={"mode": "flat"}, ocr=ocr) as (url, harness):
        await harness.indexed()
        yield url


@pytest.mark.timeout(720)  # the task's poll may take 480 s under load (Tasks.resolve), plus the server's start
async def test_ocr_bulk_runs_as_a_task_and_ends_with_its_answer(make_vault: Callable[..., Path]) -> None:
    async with server(make_vault, 2) as url:
        tasks = Tasks()
        async with client(url, reader("alice"), "auto", tasks) as alice:
            result = await alice.call_tool("ocr_bulk", {"folder": "scans"})
            assert not result.is_error and result.structured_content is not None, result
            job = result.structured_content["job"]
            assert job["status"] == "done" and (job["total"], job["read"]) == (2, 2)
            [handle] = tasks.handles  # answered at once, before the files were read; finished by polling
            assert handle.status == "working" and handle.task_id == f"ocr-{job['id']}"
            got = await alice.session.send_request(GetTask(params=TaskParams(taskId=handle.task_id)), ANY)
            assert got["status"] == "completed" and got["statusMessage"] == "ocr done: 2/2 files"
            status = await alice.call_tool("ocr_bulk", {"action": "status"})  # never a task
            assert status.structured_content is not None and status.structured_content["job"]["id"] == job["id"]
            assert len(tasks.handles) == 1


async def test_a_running_ocr_bulk_task_is_cancelled_with_tasks_cancel(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The worker holds every image (`ocr_held`): the job still runs at the cancel, however fast
    # the machine reads.
    ocr_held(monkeypatch, tmp_path / "hold", *(f"{i}.png" for i in range(4)))
    async with server(make_vault, 4) as url:
        created = await raw_legacy_call(url, reader("bob"), {"name": "ocr_bulk", "arguments": {}})
        task = created["task"]
        assert task["status"] == "working" and task["taskId"].startswith("ocr-")
        assert task["statusMessage"] == "ocr running: 0/4 files"
        async with client(url, reader("bob"), "legacy") as bob:
            listed = {t.name: t for t in (await bob.list_tools()).tools}
            assert listed["ocr_bulk"].execution is not None and listed["ocr_bulk"].execution.task_support == "optional"
            stopped = await bob.session.send_request(CancelTask(params=TaskParams(taskId=task["taskId"])), ANY)
            assert stopped["status"] == "cancelled"
            got = await bob.session.send_request(GetTask(params=TaskParams(taskId=task["taskId"])), ANY)
            assert got["status"] == "cancelled" and got["statusMessage"].startswith("ocr cancelled")
            with pytest.raises(MCPError) as again:  # already in a terminal status
                await bob.session.send_request(CancelTask(params=TaskParams(taskId=task["taskId"])), ANY)
            assert again.value.error.code == types.INVALID_PARAMS
