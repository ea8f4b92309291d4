"""A run cancelled once it has recorded its findings, while it applies its `auto_apply` kinds, is
a recorded run: its findings come with their run (last run, job reports), the plan in progress
ends and is marked applied, the others stay open, and no finding is left claimed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.types import Principal
from tests.conftest import started


def twice(i: int) -> str:
    return (
        f"---\nname: E{i}\nentityType: t\naliases: []\n---\n# E{i}\n\n## Observations\n"
        f"- Likes tea number {i} ^a{i}\n- likes tea number {i}. ^b{i}\n"
    )


async def cancelled(task: asyncio.Task[Any]) -> None:
    while not task.cancelling():  # noqa: ASYNC110 - no event says a task was asked to stop; bounded by the caller
        await asyncio.sleep(0)


async def test_a_run_cancelled_while_it_applies_stays_recorded_with_what_it_applied(
    make_vault: Callable[..., Path],
) -> None:
    vault = {f"Memory/E{i}.md": twice(i) for i in range(4)}
    async with started(make_vault(vault), plane={"auto_apply": ["duplicate"]}) as vg:
        await vg.indexed()
        plane = vg.app.plane
        assert plane.dispatch is not None
        real, applying, go_on = plane.dispatch, asyncio.Event(), asyncio.Event()

        async def held(tool: str, args: dict[str, Any], *, principal: Principal) -> Any:
            applying.set()
            await go_on.wait()  # the cancel arrives while the first plan runs
            return await real(tool, args, principal=principal)

        plane.dispatch = held
        started_run = await vg.ok("run_consolidation", wait=False, jobs=["duplicates"])
        await asyncio.wait_for(applying.wait(), 60)
        cancel = asyncio.create_task(vg.ok("run_consolidation", cancel=True))
        await asyncio.wait_for(cancelled(plane.launched[started_run["run_id"]].task), 60)
        go_on.set()  # the plan in progress goes on once the cancel has reached the run
        assert (await asyncio.wait_for(cancel, 60))["status"] == "cancelled"

        status = await vg.ok("plane_status")
        assert status["last_run_id"] == started_run["run_id"] and status["last_run"] is not None
        report = next(j for j in status["jobs"] if j["job"] == "duplicates")
        assert (report["last_status"], report["last_findings"]) == ("ran", 4)
        every = (await vg.ok("list_findings", status=None, limit=50))["items"]
        assert sorted(f["status"] for f in every) == ["applied", "open", "open", "open"]  # none left 'applying'
        applied = next(f for f in every if f["status"] == "applied")
        saved = await plane.saved("main")
        assert saved["summary"]["auto_applied"] == [applied["id"]]
        i = applied["paths"][0].removeprefix("Memory/E").removesuffix(".md")
        assert f"likes tea number {i}." not in vg.read(f"Memory/E{i}.md")  # the plan ran whole
