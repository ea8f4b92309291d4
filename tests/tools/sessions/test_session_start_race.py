"""Two start_session calls of one caller at once, through one server or two on one data folder:
exactly one opens a session, the other answers conflict naming it, and one row stays open (start
was check-then-act: both passed the check before either inserted, both answered ok and two rows
stayed open; end_session then ended one and the next start_session answered conflict naming the
leftover). R7's review of fb68b699 (session 77); P2's finding: the loser's trace line could make
the winner's trace file before its header."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, started


async def _one_wins(a_call: object, b_call: object, vg: Harness, root: Path) -> None:
    a, b = await asyncio.gather(a_call, b_call)  # type: ignore[call-overload]
    assert sorted([a.is_error, b.is_error]) == [False, True], (a.structured, b.structured)
    won, lost = (b, a) if a.is_error else (a, b)
    assert lost.structured["error"]["code"] == "conflict"
    assert lost.structured["error"]["details"]["session_id"] == won.structured["session_id"]
    rows = await vg.app.state.fetchall("SELECT id FROM agent_sessions WHERE ended_at IS NULL")
    assert [r[0] for r in rows] == [won.structured["session_id"]]
    trace = (root / won.structured["path"]).read_text(encoding="utf-8").splitlines()
    assert json.loads(trace[0])["type"] == "session.started"  # the header is the file's first line
    ended = await vg.ok("end_session")
    assert ended["session_id"] == won.structured["session_id"]
    again = await vg.ok("start_session", name="after")  # nothing left open
    await vg.ok("end_session", session_id=again["session_id"])


async def test_two_starts_at_once_through_one_server(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"H.md": "# H\n"})
    async with started(root) as vg:
        for _ in range(3):
            await _one_wins(vg.call("start_session", name="one"), vg.call("start_session", name="two"), vg, root)


async def test_two_starts_at_once_through_two_servers(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"H.md": "# H\n"})
    async with started(root) as x, started(root) as y:
        for _ in range(3):
            await _one_wins(x.call("start_session", name="one"), y.call("start_session", name="two"), x, root)
