"""One INFO line per tool call on `vaultgate.calls` (tool, vault, outcome, ms, hashed caller),
switchable off with `log.calls = false`."""

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
    async with started(make_vault()) as vg:
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


async def test_the_line_can_be_switched_off(make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="vaultgate.calls")
    async with started(make_vault(), log={"calls": False}) as vg:
        await vg.ok("read_note", path="Welcome")
    assert [r for r in caplog.records if r.name == "vaultgate.calls"] == []
