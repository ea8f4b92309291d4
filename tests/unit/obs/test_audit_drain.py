"""The audit sink's batching pause never holds a waiter: a stop or get_audit_log right after a
call has its events written at once, not after the gathering pause (FLUSH_DELAY)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import service.obs.audit as audit_module
from tests.conftest import started

LONG_PAUSE_S = 600.0  # a gathering pause no wait below (60 s: bounds for a loaded machine) would outlast


async def test_drained_writes_the_gathered_batch_without_waiting_for_the_pause(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_module, "FLUSH_DELAY", LONG_PAUSE_S)
    async with started(make_vault({"A.md": "# A\n"})) as vg:
        await vg.ok("read_note", path="A")
        await vg.ok("read_note", path="A")
        await vg.app.audit.drained(within=60.0)
        rows = await vg.app.services.state.fetchall("SELECT tool, status FROM event_log ORDER BY id")
        assert [tuple(r) for r in rows] == [("read_note", "ok"), ("read_note", "ok")]
        # and the sink gathers again afterwards: a later call is written by the next wait too
        await vg.ok("read_note", path="A")
        page = await vg.ok("get_audit_log", tool="read_note")
        assert len(page["items"]) == 3


async def test_a_stop_right_after_a_call_keeps_its_event_and_does_not_wait_for_the_pause(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_module, "FLUSH_DELAY", LONG_PAUSE_S)
    root = make_vault({"A.md": "# A\n"})
    async with started(root) as vg:
        await vg.ok("read_note", path="A")
        t0 = time.perf_counter()
        async with asyncio.timeout(60.0):
            await vg.app.stop()
        assert time.perf_counter() - t0 < 60.0
    async with started(root) as vg:
        rows = await vg.app.services.state.fetchall("SELECT tool FROM event_log")
        assert [r[0] for r in rows] == ["read_note"]
