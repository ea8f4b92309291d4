"""A JSON-RPC request whose id is not a string or an integer is answered `-32600 Invalid
Request` (HTTP 400), on a real server: the SDK transport alone took it for a notification and
answered 202 with no reply, leaving the client waiting forever."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from service.http.request_ids import bad_request_id
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
    assert bad_request_id({"jsonrpc": "2.0", "id": 3, "method": "ping"}) is None
    assert bad_request_id({"jsonrpc": "2.0", "id": "x", "method": "ping"}) is None
    assert bad_request_id({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert bad_request_id({"jsonrpc": "2.0", "id": {"a": 1}, "result": {}}) is None  # a response: not ours to judge
    assert bad_request_id({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}) == (
        "a request id must be a string or an integer, not object"
    )
    assert bad_request_id([{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"id": None, "method": "ping"}]) == (
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
