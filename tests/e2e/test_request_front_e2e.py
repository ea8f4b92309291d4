"""The HTTP request front (service/http/front.py) on a real server: a client that goes away in
the middle of its POST body leaves nothing behind — no server error logged, nothing handed to
its session — on the SDK's path and the fast paths, 2025-era sessions and 2026-07-28 requests;
the session answers its next call as before."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import e2e
from tests.e2e.test_fast_calls_e2e import ENVELOPE, INIT
from tests.e2e.test_tools_list_http_e2e import _body

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
CALL = {
    "jsonrpc": "2.0",
    "id": 5,
    "method": "tools/call",
    "params": {"name": "read_note", "arguments": {"path": "Welcome"}},
}
MODERN = {**CALL, "params": {**CALL["params"], "_meta": ENVELOPE}}
MODERN_HEADERS = {**ACCEPT, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "read_note"}


async def _cut(url: str, headers: dict[str, str], body: bytes) -> None:
    """POST `body` to `url` but send only its first 20 bytes, then go away."""
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    head = "".join(f"{k}: {v}\r\n" for k, v in {**headers, "content-length": str(len(body))}.items())
    writer.write(f"POST {parts.path} HTTP/1.1\r\nhost: {parts.netloc}\r\n{head}\r\n".encode() + body[:20])
    await writer.drain()
    await asyncio.sleep(0.2)  # the server has read the start of the body
    writer.close()
    await writer.wait_closed()


@pytest.mark.parametrize("fast", [False, True], ids=["sdk", "fast-calls"])
async def test_a_client_gone_in_the_middle_of_its_body_leaves_no_server_error(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture, fast: bool
) -> None:
    caplog.set_level(logging.WARNING)
    async with e2e(make_vault(), protocol={"fast_calls": fast}) as (url, harness), create_mcp_http_client() as http:
        await harness.indexed()
        init = await http.post(url, content=json.dumps(INIT), headers=ACCEPT)
        session = {**ACCEPT, "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        await http.post(
            url, content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), headers=session
        )
        caplog.clear()
        await _cut(url, session, json.dumps(CALL).encode())
        await _cut(url, MODERN_HEADERS, json.dumps(MODERN).encode())
        await asyncio.sleep(0.3)  # the server has seen both go away
        after = await http.post(url, content=json.dumps(CALL), headers=session)
        modern = await http.post(url, content=json.dumps(MODERN), headers=MODERN_HEADERS)
    assert after.status_code == 200 and after.json()["result"]["structuredContent"]["title"] == "Welcome"
    assert modern.status_code == 200 and modern.json()["result"]["structuredContent"]["title"] == "Welcome"
    errors = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == []


async def test_a_cursor_of_thousands_of_digits_is_an_invalid_cursor(make_vault: Callable[..., Path]) -> None:
    """`tools/list` and `tasks/list` took any ASCII digits for an offset: `int` of over 4300
    digits raised ValueError, and a 30-digit offset overflowed SQLite's integer; the client got
    error code 0 with Python's message (2025 session) or `-32603 Internal server error`
    (2026-07-28), where any cursor the server never issued is `-32602 invalid cursor`."""
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": "1" * 5000}}
    tasks = {"jsonrpc": "2.0", "id": 2, "method": "tasks/list", "params": {"cursor": "1" * 30}}
    modern = {**listing, "params": {**listing["params"], "_meta": ENVELOPE}}
    headers = {**MODERN_HEADERS, "mcp-method": "tools/list"}
    del headers["mcp-name"]
    async with e2e(make_vault()) as (url, harness), create_mcp_http_client() as http:
        await harness.indexed()
        init = await http.post(url, content=json.dumps(INIT), headers=ACCEPT)
        session = {**ACCEPT, "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        await http.post(
            url, content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), headers=session
        )
        # `_body`: a JSON answer, or a stream's last event (a first SDK tools/list is built off the event
        # loop since f6f2f77b, so on a loaded machine the transport's grace can pass and it answers as a stream)
        answers = [
            _body(await http.post(url, content=json.dumps(listing), headers=session)),
            _body(
                await http.post(url, content=json.dumps({**listing, "params": {"cursor": "3" * 30}}), headers=session)
            ),
            _body(await http.post(url, content=json.dumps(tasks), headers=session)),
            _body(await http.post(url, content=json.dumps(modern), headers=headers)),
        ]
    assert [a["error"] for a in answers] == [{"code": -32602, "message": "invalid cursor"}] * 4
