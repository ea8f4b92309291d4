"""One line per tool call on `vaultgate.calls` (tool, vault, outcome, ms, hashed caller): INFO
for failures and calls slower than `log.call_info_ms`, DEBUG for fast successes; switchable off
with `log.calls = false`."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from service.obs.logging import JsonFormatter
from tests.conftest import started


async def test_one_line_per_call_with_the_outcome_code_and_a_hashed_caller(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="vaultgate.calls")
    async with started(make_vault(), log={"call_info_ms": 0}) as vg:
        await vg.ok("read_note", path="Welcome")
        await vg.err("read_note", "note_not_found", path="Nope")
        await vg.err("no_such_tool", "not_found")
    lines = [r for r in caplog.records if r.name == "vaultgate.calls"]
    assert len(lines) == 3
    hashed = hashlib.sha256(vg.principal.subject.encode()).hexdigest()[:12]
    first, second, third = (r.getMessage() for r in lines)
    assert first.startswith("call tool=read_note vault=main outcome=ok ms=") and first.endswith(f"caller={hashed}")
    assert "outcome=note_not_found" in second
    assert "tool=unknown" in third and "outcome=not_found" in third  # a caller cannot mint log text
    assert vg.principal.subject not in first
    entry = json.loads(JsonFormatter().format(lines[0]))
    assert entry["tool"] == "read_note" and entry["outcome"] == "ok" and entry["caller"] == hashed
    assert isinstance(entry["ms"], float) and entry["level"] == "info" and entry["ts"] > 0


async def test_fast_successes_are_debug_failures_and_slow_calls_info(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="vaultgate.calls")
    async with started(make_vault()) as vg:  # default: successes under 1000 ms at DEBUG
        await vg.ok("read_note", path="Welcome")
        await vg.err("read_note", "note_not_found", path="Nope")
    async with started(make_vault(), log={"call_info_ms": 0.000001}) as vg:  # every call is "slow"
        await vg.ok("read_note", path="Welcome")
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "vaultgate.calls"]
    assert [level for level, _ in lines] == [logging.DEBUG, logging.INFO, logging.INFO]
    assert "outcome=ok" in lines[0][1] and "outcome=note_not_found" in lines[1][1] and "outcome=ok" in lines[2][1]


async def test_the_line_can_be_switched_off(make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="vaultgate.calls")
    async with started(make_vault(), log={"calls": False}) as vg:
        await vg.ok("read_note", path="Welcome")
    assert [r for r in caplog.records if r.name == "vaultgate.calls"] == []


async def test_a_failure_is_logged_at_info_under_the_default_settings(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    """The default `[log]` (level info, call_info_ms 1000): a failed call writes its line, a fast
    success does not (it is DEBUG)."""
    caplog.set_level(logging.INFO, logger="vaultgate.calls")
    async with started(make_vault()) as vg:
        await vg.ok("read_note", path="Welcome")
        await vg.err("read_note", "note_not_found", path="Nope")
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "vaultgate.calls"]
    assert len(lines) == 1
    assert lines[0][0] == logging.INFO and "outcome=note_not_found" in lines[0][1]
