"""Resuming a stream over Streamable HTTP on a real uvicorn server: the server keeps no event store,
so a GET carrying `Last-Event-ID` (what a client sends to resume a dropped stream) opens the
stream as a plain GET does — never the plain-text 500 the SDK's transport gave when it sent no
response at all — and a second one on the session is the transport's structured 409."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

from tests.conftest import e2e

VERSION = "2025-06-18"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "resume", "version": "1"}},
}


async def session(http: httpx2.AsyncClient, url: str) -> dict[str, str]:
    """Initialize a session; the headers of its later requests."""
    answer = await http.post(url, json=INIT, headers=HEADERS)
    assert answer.status_code == 200
    headers = {**HEADERS, "mcp-session-id": answer.headers["mcp-session-id"], "mcp-protocol-version": VERSION}
    initialized = await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    assert initialized.status_code == 202
    return {**headers, "Accept": "text/event-stream"}


@pytest.mark.parametrize("last_event_id", ["1", "x" * 4000], ids=["an id", "a long id"])
async def test_a_get_with_last_event_id_opens_the_stream(make_vault: Callable[..., Path], last_event_id: str) -> None:
    async with e2e(make_vault()) as (url, _), httpx2.AsyncClient(timeout=30) as http:
        headers = await session(http, url)
        resumed = {**headers, "Last-Event-ID": last_event_id}
        async with http.stream("GET", url, headers=resumed) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            async with http.stream("GET", url, headers=resumed) as second:  # one stream per session
                assert second.status_code == 409
                assert second.headers["content-type"].startswith("application/json")
        ping = await http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers={**headers, **HEADERS})
        assert ping.status_code == 200  # the session still answers
