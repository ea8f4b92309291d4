"""E2E (both protocol eras, two uvicorn servers on one vault and data folder, an SDK client on
each) for workspace sessions across servers (tests/tools/sessions/test_sessions_two_servers.py):
a session ended through one server no longer blocks start_session on the other, and one opened
through one is ended through the other."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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
