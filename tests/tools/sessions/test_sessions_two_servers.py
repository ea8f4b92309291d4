"""Workspace sessions with two servers on one vault and data folder (P2 s77, X2 s76 left
`SessionTraces.start`): each server kept its own registry of open sessions, filled from
`agent_sessions` at its start only. A session ended through one server stayed open in the other
(its start_session answered `conflict` "you already have an open session" naming the ended one,
until a restart); a session opened through one was unknown to the other (end_session: `not_found`;
start_session opened a second session for the same caller and vault). start_session and
end_session now read the caller's open session from `agent_sessions` (`SessionTraces.current`),
and a server's stop no longer rewrites the call count of a session another server ended."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


async def test_a_session_ended_through_one_server_is_ended_for_the_other(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root, index={"watch": False}) as a:
        first = await a.ok("start_session", name="one")
        async with started(root, index={"watch": False}) as b:  # adopts the open session at its start
            for _ in range(3):
                await b.ok("read_note", path="Home")  # traced (and counted) by b
            ended = await a.ok("end_session")
            assert ended["session_id"] == first["session_id"]
            second = await b.ok("start_session", name="two")
            assert second["session_id"] != first["session_id"]
            await b.ok("end_session")
        rows = await a.app.state.fetchall("SELECT id, ended_at, calls FROM agent_sessions ORDER BY started_at")
        assert [(r[0], r[1] is not None) for r in rows] == [(first["session_id"], True), (second["session_id"], True)]
        assert rows[0][2] == ended["calls"] - 1  # a's count when it ended it (end_session's own line after): b left it


async def test_a_session_opened_through_one_server_is_the_others_too(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root, index={"watch": False}) as a, started(root, index={"watch": False}) as b:
        opened = await b.ok("start_session", name="on b")
        refused = await a.err("start_session", "conflict", name="on a")
        assert refused["details"]["session_id"] == opened["session_id"]
        ended = await a.ok("end_session", session_id=opened["session_id"])
        assert ended["session_id"] == opened["session_id"]
        await b.err("end_session", "not_found")
        rows = await a.app.state.fetchall("SELECT id FROM agent_sessions WHERE ended_at IS NULL")
        assert rows == []
