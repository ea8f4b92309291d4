"""E2E (both protocol eras, two uvicorn servers on one vault and data folder, an SDK client on
each) for workspace sessions across servers (tests/tools/sessions/test_sessions_two_servers.py):
a session ended through one server no longer blocks start_session on the other, and one opened
through one is ended through the other."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok


async def test_sessions_are_one_across_two_servers(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Home.md": "# Home\n"})
    async with e2e(root, index={"watch": False}) as (url_a, _), Client(url_a, mode=mode) as on_a:
        first = await ok(on_a, "start_session", name="one")
        async with e2e(root, index={"watch": False}) as (url_b, _), Client(url_b, mode=mode) as on_b:
            await ok(on_b, "read_note", path="Home")
            assert (await ok(on_a, "end_session"))["session_id"] == first["session_id"]
            second = await ok(on_b, "start_session", name="two")
            refused = await error(on_a, "start_session", name="three")
            assert refused["code"] == "conflict" and refused["details"]["session_id"] == second["session_id"]
            assert (await ok(on_a, "end_session"))["session_id"] == second["session_id"]
            assert (await error(on_b, "end_session"))["code"] == "not_found"


async def test_two_starts_at_once_open_one_session(make_vault: Callable[..., Path], mode: str) -> None:
    """Two start_session calls at once, one through each server: one session, the other conflict
    naming it (both answered ok and two stayed open before)."""
    root = make_vault({"Home.md": "# Home\n"})
    async with (
        e2e(root, index={"watch": False}) as (url_a, _),
        Client(url_a, mode=mode) as on_a,  # type: ignore[arg-type]
        e2e(root, index={"watch": False}) as (url_b, _),
        Client(url_b, mode=mode) as on_b,  # type: ignore[arg-type]
    ):
        for _ in range(3):
            a, b = await asyncio.gather(
                on_a.call_tool("start_session", {"name": "a"}), on_b.call_tool("start_session", {"name": "b"})
            )
            assert sorted([bool(a.is_error), bool(b.is_error)]) == [False, True]
            won, lost = (b, a) if a.is_error else (a, b)
            assert lost.structured_content is not None and won.structured_content is not None
            assert lost.structured_content["error"]["code"] == "conflict"
            assert lost.structured_content["error"]["details"]["session_id"] == won.structured_content["session_id"]
            assert (await ok(on_a, "end_session"))["session_id"] == won.structured_content["session_id"]
            assert (await error(on_b, "end_session"))["code"] == "not_found"


async def test_a_session_ended_through_one_server_gets_no_more_lines_from_the_other(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """The other server kept appending its calls to the ended session's trace until its own next
    start_session/end_session (P2 s77); its trace writer now sees the end
    (tests/tools/sessions/test_sessions_two_servers.py)."""
    root = make_vault({"Home.md": "# Home\n"})
    async with e2e(root, index={"watch": False}) as (url_a, on_a_side), Client(url_a, mode=mode) as on_a:
        first = await ok(on_a, "start_session", name="one")
        async with e2e(root, index={"watch": False}) as (url_b, on_b_side), Client(url_b, mode=mode) as on_b:
            await ok(on_b, "read_note", path="Home")
            await on_b_side.app.sessions.drained()
            await ok(on_a, "end_session")
            await on_a_side.app.sessions.drained()
            trace = root / first["path"]
            before = (await anyio.Path(trace).read_text()).count('"read_note"')
            assert before == 1
            for _ in range(3):
                await ok(on_b, "read_note", path="Home")
                await on_b_side.app.sessions.drained()
            assert (await anyio.Path(trace).read_text()).count('"read_note"') == before


async def test_a_session_opened_through_one_server_traces_the_others_next_call(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """The other server traced the caller's calls into it only from its own next
    start_session/end_session (P3 s78); each call now reads the caller's open session
    (tests/tools/sessions/test_sessions_two_servers.py)."""
    root = make_vault({"Home.md": "# Home\n"})
    async with (
        e2e(root, index={"watch": False}) as (url_a, on_a_side),
        Client(url_a, mode=mode) as on_a,  # type: ignore[arg-type]
        e2e(root, index={"watch": False}) as (url_b, on_b_side),
        Client(url_b, mode=mode) as on_b,  # type: ignore[arg-type]
    ):
        await ok(on_b, "read_note", path="Home")
        opened = await ok(on_a, "start_session", name="one")
        await ok(on_b, "read_note", path="Home")
        await ok(on_a, "end_session")
        await ok(on_b, "read_note", path="Home")
        await on_a_side.app.sessions.drained()
        await on_b_side.app.sessions.drained()
        assert (await anyio.Path(root / opened["path"]).read_text()).count('"read_note"') == 1
        await on_b_side.app.audit.drained()
        rows = await on_b_side.app.state.fetchall(
            "SELECT session_id FROM event_log WHERE tool = 'read_note' ORDER BY id"
        )
        assert [row[0] for row in rows] == [None, opened["session_id"], None]
