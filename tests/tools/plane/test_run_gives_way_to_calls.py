"""A consolidation run gives way to the server's calls through the whole dispatch chain: its
unlinked-mention matching (the audit's costliest work, in a worker thread) waits at each check
while a call runs, and run_consolidation waiting for the run it started is no such call (the
run would otherwise wait for its own caller)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.plane import audit, job
from tests.conftest import started

VAULT = {
    "Home.md": "# Home\n\nWe met at Projects Alpha yesterday, see [[Other]].\n",
    "Projects Alpha.md": "# Projects Alpha\n\nBack to [[Home]].\n",
    "Other.md": "# Other\n\nBack to [[Home]] and [[Projects Alpha]].\n",
}


def _mentions(found: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(f["detail"]["path"], f["detail"]["target"]) for f in found if f["kind"] == "unlinked_mention"]


async def test_the_mention_matching_waits_while_a_call_runs(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(job, "TURN_WAIT_S", 60.0)  # only the call's end lets the run go on
    monkeypatch.setattr(job, "WAIT_FLOOR_S", 60.0)
    monkeypatch.setattr(job, "PAUSE_S", 0.05)
    matched: list[str] = []
    real_prose, real_pause = audit.prose, job.calls_pause
    monkeypatch.setattr(audit, "prose", lambda text: matched.append(text) or real_prose(text))
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        activity = vg.app.activity
        held = threading.Event()

        def pause(quiet_s: float, within: float, **kw: Any) -> float:
            if activity.running:
                held.set()
            return real_pause(quiet_s, within, **kw)

        monkeypatch.setattr(job, "calls_pause", pause)
        activity.begin()  # a call in flight (what the dispatcher's entry does for each call)
        try:
            assert (await vg.ok("run_consolidation", wait=False, jobs=["audit"]))["status"] == "running"
            assert await asyncio.to_thread(held.wait, 30)
            await asyncio.sleep(0.2)
            assert matched == []  # the run waits at its check, before any matching
        finally:
            activity.end()
        run = await asyncio.wait_for(vg.ok("run_consolidation", wait=True, jobs=["audit"]), 30)  # joins it
        found = (await vg.ok("list_findings", limit=100))["items"]
    assert [j["status"] for j in run["jobs"]] == ["ran"]
    assert matched and _mentions(found) == [("Home.md", "Projects Alpha.md")]


async def test_a_run_waited_for_does_not_wait_for_its_own_caller(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(job, "TURN_WAIT_S", 60.0)
    monkeypatch.setattr(job, "PAUSE_S", 60.0)
    monkeypatch.setattr(job, "WAIT_FLOOR_S", 60.0)
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        run = await asyncio.wait_for(vg.ok("run_consolidation", wait=True, jobs=["audit"]), 30)
        assert vg.app.activity.running == 0
        found = (await vg.ok("list_findings", limit=100))["items"]
    assert [j["status"] for j in run["jobs"]] == ["ran"]
    assert _mentions(found) == [("Home.md", "Projects Alpha.md")]
