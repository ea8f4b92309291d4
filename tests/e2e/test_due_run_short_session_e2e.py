"""A consolidation run due at a stdio start (the vault's last run is older than `[plane]
interval_minutes`) no longer starts in a short session: it waits until the server has been up
`after_start_minutes` (5 by default). Before, it started at the first quiet second, the session's
end cancelled it, nothing was recorded, and the next start began it again: every short session paid
for a run (11 s of CPU and 50 MB at 10k notes). A real `vaultgate stdio` subprocess, the SDK client.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

VAULT = {"Home.md": "# Home\n\nSee [[Other]] and [[Gone]].\n", "Other.md": "# Other\n\nBack [[Home]].\n"}
AGO_S = 5 * 3600.0  # the last run: longer ago than the interval (4 hours)


def _params(root: Path) -> StdioServerParameters:
    env = {**os.environ, "VAULTGATE_EMBEDDINGS__PROVIDER": "none"}
    return StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)], env=env)


def _state() -> Path:
    (db,) = Path(os.environ["XDG_DATA_HOME"]).rglob("state.db")
    return db


def _saved() -> tuple[Any, ...]:
    with sqlite3.connect(_state()) as conn:
        row = conn.execute("SELECT last_run, last_run_id, summary FROM plane_state WHERE vault_id = 'main'").fetchone()
    return tuple(row)


def _made_old() -> str:
    """The recorded run moved AGO_S back (its end and cursor): the schedule finds a run due."""
    last_run, run_id, summary = _saved()
    old = last_run - AGO_S
    moved = {**json.loads(summary), "full_run_end": old, "ended_at": old, "started_at": old - 1}
    with sqlite3.connect(_state()) as conn:
        conn.execute(
            "UPDATE plane_state SET last_run = ?, cursor = ?, summary = ? WHERE vault_id = 'main'",
            (old, old - 1, json.dumps(moved)),
        )
    return str(run_id)


async def _status(c: Client) -> dict[str, Any]:
    result = await c.call_tool("plane_status", {})
    assert not result.is_error and result.structured_content is not None, result
    return result.structured_content


async def test_a_due_run_does_not_start_in_a_short_stdio_session(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with Client(_params(root)) as c:  # a first session: the vault's run recorded
        await c.call_tool("reindex", {"mode": "sync"})
        ran = await c.call_tool("run_consolidation", {"wait": True})
        assert not ran.is_error
    first = _made_old()
    async with Client(_params(root)) as c:  # a short session, as a client spawning a server per task
        await c.call_tool("reindex", {"mode": "sync"})
        status = await _status(c)
        assert status["running"] is None and status["last_run_id"] == first
        next_run = datetime.fromisoformat(status["next_run"]).timestamp()
        # due since an hour, but held until the server has been up 5 minutes
        assert time.time() + 4 * 60 < next_run <= time.time() + 5 * 60 + 5
        for path in ("Home", "Other", "Home"):
            assert not (await c.call_tool("read_note", {"path": path})).is_error
        assert (await _status(c))["running"] is None
    assert _saved()[1] == first  # nothing started, nothing recorded: the same run is still the last
