"""A flood of `initialize` requests cannot grow the server's memory without bound: at
`[http] max_sessions` open sessions, one more is answered 503 with a JSON-RPC error (each
session was kept ~35 KB until it idled out, 30 minutes by default, with a limit of 10,000);
the open sessions keep working, and a session that ends makes room."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import e2e
from tests.e2e.test_fast_calls_e2e import INIT

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


async def test_sessions_past_the_limit_are_refused_and_the_open_ones_keep_working(
    make_vault: Callable[..., Path],
) -> None:
    async with e2e(make_vault(), http={"max_sessions": 2}) as (url, _), create_mcp_http_client() as http:
        opened = [await http.post(url, json=INIT, headers=HEADERS) for _ in range(2)]
        assert [o.status_code for o in opened] == [200, 200]
        refused = await http.post(url, json=INIT, headers=HEADERS)
        assert refused.status_code == 503 and "mcp-session-id" not in refused.headers
        assert refused.json()["error"]["message"] == "Too many open sessions"
        first = {**HEADERS, "mcp-session-id": opened[0].headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=first)
        ping = await http.post(url, json={"jsonrpc": "2.0", "id": 7, "method": "ping"}, headers=first)
        assert ping.status_code == 200 and ping.json() == {"jsonrpc": "2.0", "id": 7, "result": {}}
        assert (await http.delete(url, headers=first)).status_code == 200
        again = await http.post(url, json=INIT, headers=HEADERS)
        assert again.status_code == 200 and again.headers["mcp-session-id"]
