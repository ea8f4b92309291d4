"""A request whose body is still arriving when the HTTP server stops (a slow upload), on a real
uvicorn server: answered 503 with the JSON-RPC error `server_stopping` (id null: its body was
never read) and its connection closed, and no traceback logged. uvicorn cancelled it at the end
of the graceful period: an HTTP 500 "Internal Server Error" and "Exception in ASGI application"
in the log. A request already answered on a kept-alive connection is left alone."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import e2e

WITHIN = 60.0


async def test_a_body_still_arriving_at_the_stop_is_answered_server_stopping(
    make_vault: Callable[..., Path], caplog: pytest.LogCaptureFixture
) -> None:
    root = make_vault({"Home.md": "# Home\n\nhello\n"})
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "padding": " " * 100_000}).encode()
    async with e2e(root, http={"graceful_shutdown_seconds": 3}) as (url, _vg):
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        head = (
            f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        writer.write(head.encode() + body[:1000])  # the rest never comes
        await writer.drain()
    answer = await asyncio.wait_for(reader.read(), WITHIN)  # all of it: the connection was closed
    writer.close()
    status, _, payload = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 503 "), answer[:200]
    assert b"connection: close" in status.lower()
    error = json.loads(payload)
    assert error["id"] is None and error["error"]["data"]["code"] == "server_stopping"
    assert error["error"]["data"]["retryable"] is True
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
