"""Workspace sessions with two servers on one vault and data folder (P2 s77, X2 s76 left
`SessionTraces.start`): each server kept its own registry of open sessions, filled from
`agent_sessions` at its start only. A session ended through one server stayed open in the other
(its start_session answered `conflict` "you already have an open session" naming the ended one,
until a restart); a session opened through one was unknown to the other (end_session: `not_found`;
start_session opened a second session for the same caller and vault). start_session and
end_session now read the caller's open session from `agent_sessions` (`SessionTraces.current`),
and a server's stop no longer rewrites the call count of a session another server ended."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def _traced(trace: Path) -> list[dict[str, Any]]:
    """The trace's call lines (JSON objects naming a tool)."""
    lines = [line for line in trace.read_text().splitlines() if line.startswith("{")]
    return [event for event in map(json.loads, lines) if isinstance(event, dict) and "tool" in event]


async def test_calls_after_the_other_server_ended_the_session_are_not_traced_into_it(
    make_vault: Callable[..., Path],
) -> None:
    """P2 s77 left it: the server that did not end the session kept appending its calls to the
    ended session's trace (and counting them) until its own next start_session/end_session. Its
    trace writer now sees the end in `agent_sessions`: those lines are not written (the server
    forgets the session), and the caller's next session gets its calls."""
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root, index={"watch": False}) as a:
        first = await a.ok("start_session", name="one")
        async with started(root, index={"watch": False}) as b:  # adopts the open session at its start
            await b.ok("read_note", path="Home")  # traced into it: the session is open
            await b.app.sessions.drained()
            await a.ok("end_session")
            await a.app.sessions.drained()
            trace = root / first["path"]
            lines = len(_traced(trace))
            for _ in range(3):
                await b.ok("read_note", path="Home")
                await b.app.sessions.drained()
            assert len(_traced(trace)) == lines  # nothing after the end
            second = await b.ok("start_session", name="two")  # b's own start: nothing open, a new one
            await b.ok("read_note", path="Home")
            await b.app.sessions.drained()
            assert [e["tool"] for e in _traced(root / second["path"])] == ["start_session", "read_note"]
            assert len(_traced(trace)) == lines


async def _audited(vg: Any, tool: str) -> list[str | None]:
    """The session ids the audit log gives `tool`'s calls, oldest first."""
    await vg.app.audit.drained()
    rows = await vg.app.state.fetchall("SELECT session_id FROM event_log WHERE tool = ? ORDER BY id", (tool,))
    return [row[0] for row in rows]


async def test_a_session_another_server_opens_is_traced_here_from_the_next_call(
    make_vault: Callable[..., Path],
) -> None:
    """P3 s78 left it: a server running when another opened a session for the caller traced the
    caller's calls into it only from its own next start_session/end_session (or restart); its
    calls meanwhile were neither in the trace nor carried the session id in the audit log. Each
    call now reads the caller's open session (`SessionTraces.seen`)."""
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root, index={"watch": False}) as a, started(root, index={"watch": False}) as b:
        await b.ok("read_note", path="Home")  # before any session: none traced, none named
        opened = await a.ok("start_session", name="on a")
        for _ in range(2):
            await b.ok("read_note", path="Home")
        await a.app.sessions.drained()
        await b.app.sessions.drained()
        traced = [e["tool"] for e in _traced(root / opened["path"])]  # the two servers' writers in either order
        assert sorted(traced) == ["read_note", "read_note", "start_session"]
        assert await _audited(b, "read_note") == [None, opened["session_id"], opened["session_id"]]
        ended = await a.ok("end_session")
        assert ended["calls"] == 2  # a's count: start_session and end_session (b counts its own)


async def test_calls_right_after_the_other_server_ended_the_session_name_no_session(
    make_vault: Callable[..., Path],
) -> None:
    """P3 s78 left it: the audit log's session_id of the calls a server made after another ended
    the session, before its trace writer looked, still named the ended session."""
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root, index={"watch": False}) as a:
        opened = await a.ok("start_session", name="one")
        async with started(root, index={"watch": False}) as b:  # adopts the open session at its start
            await b.ok("read_note", path="Home")
            await a.ok("end_session")
            for _ in range(3):  # no wait for b's trace writer between them
                await b.ok("read_note", path="Home")
            assert await _audited(b, "read_note") == [opened["session_id"], None, None, None]
            await b.app.sessions.drained()
            traced = [e["tool"] for e in _traced(root / opened["path"])]  # the two servers' writers in either order
            assert sorted(traced) == ["end_session", "read_note", "start_session"]  # b's one read before the end


async def test_a_call_reads_the_row_only_after_a_start_or_end_somewhere(make_vault: Callable[..., Path]) -> None:
    """Guard for the cost of `SessionTraces.seen`: the stamp every start and end touches is looked
    at once per call; the caller's row is read again only when it changed."""
    root = make_vault({"Home.md": "# Home\n"})
    async with started(root, index={"watch": False}) as a, started(root, index={"watch": False}) as b:
        reads: list[str] = []
        point_read = b.app.state.point_read

        def counted(sql: str, params: Any = ()) -> Any:
            reads.append(sql)
            return point_read(sql, params)

        b.app.state.point_read = counted  # type: ignore[method-assign]
        for _ in range(3):
            await b.ok("read_note", path="Home")
        assert len(reads) == 1
        await a.ok("start_session", name="one")
        for _ in range(3):
            await b.ok("read_note", path="Home")
        assert len(reads) == 2
