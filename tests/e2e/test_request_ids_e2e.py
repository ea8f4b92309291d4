"""A JSON-RPC request whose id is not a string or an integer is answered `-32600 Invalid
Request` (HTTP 400), on a real server: the SDK transport alone took it for a notification and
answered 202 with no reply, leaving the client waiting forever. Over stdio the SDK transport
dropped such a line silently; the stdio front answers it the same way."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from service.protocol.framing import envelope_error
from tests.conftest import Harness

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
BAD_IDS: list[Any] = [{"a": 1}, [1], True, None, 1.5, 2.0]


def test_only_strings_and_integers_are_request_ids() -> None:
    assert envelope_error({"jsonrpc": "2.0", "id": 3, "method": "ping"}) is None
    assert envelope_error({"jsonrpc": "2.0", "id": "x", "method": "ping"}) is None
    assert envelope_error({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert envelope_error({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}) == (
        "a request id must be a string or an integer, not object"
    )
    assert envelope_error({"jsonrpc": "2.0", "id": None, "method": "ping"}) == (
        "a request id must be a string or an integer, not null"
    )


async def _session(http: httpx2.AsyncClient, url: str) -> dict[str, str]:
    response = await http.post(url, json=INIT, headers=HEADERS)
    assert response.status_code == 200
    session = {**HEADERS, "mcp-session-id": response.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    done = await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
    assert done.status_code == 202
    return session


@pytest.mark.parametrize("rid", BAD_IDS, ids=[repr(r) for r in BAD_IDS])
async def test_a_request_with_an_invalid_id_is_answered_invalid_request(
    e2e_server: tuple[str, Harness], rid: Any
) -> None:
    url, _ = e2e_server
    async with httpx2.AsyncClient(timeout=30) as http:
        session = await _session(http, url)
        bad = await http.post(url, json={"jsonrpc": "2.0", "id": rid, "method": "tools/list"}, headers=session)
        assert bad.status_code == 400
        body = bad.json()
        assert body["id"] is None and body["error"]["code"] == -32600
        assert "string or an integer" in body["error"]["message"]
        good = await http.post(url, json={"jsonrpc": "2.0", "id": "next", "method": "ping"}, headers=session)
        assert good.status_code == 200 and '"next"' in good.text  # the session goes on


async def test_a_batch_holding_one_invalid_id_is_refused_and_notifications_still_pass(
    e2e_server: tuple[str, Harness],
) -> None:
    url, _ = e2e_server
    async with httpx2.AsyncClient(timeout=30) as http:
        session = await _session(http, url)
        batch = [{"jsonrpc": "2.0", "id": 5, "method": "ping"}, {"jsonrpc": "2.0", "id": [], "method": "ping"}]
        refused = await http.post(url, json=batch, headers=session)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == -32600
        note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}
        assert (await http.post(url, json=note, headers=session)).status_code == 202


async def test_over_stdio_a_request_with_an_invalid_id_is_answered_invalid_request(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "service",
        "stdio",
        str(root),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=dict(os.environ),
    )
    assert proc.stdin is not None and proc.stdout is not None

    async def send(message: Any) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        await proc.stdin.drain()

    async def answer() -> dict[str, Any]:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 60)
        out: dict[str, Any] = json.loads(line)
        return out

    try:
        await send(INIT)
        assert (await answer())["id"] == 1
        await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for rid in BAD_IDS:
            await send({"jsonrpc": "2.0", "id": rid, "method": "tools/list"})
            bad = await answer()
            assert bad["id"] is None and bad["error"]["code"] == -32600, rid
            assert "string or an integer" in bad["error"]["message"]
        await send({"jsonrpc": "2.0", "id": "next", "method": "ping"})
        assert (await answer()) == {"jsonrpc": "2.0", "id": "next", "result": {}}  # the session goes on
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), 60)
