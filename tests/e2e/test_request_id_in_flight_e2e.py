"""A request whose id a request in flight on the same session carries is refused (HTTP 400,
JSON-RPC -32600 naming the id) on every path: past the SDK (fast calls), the SDK's session behind
the lazy transport, and the SDK's own transport (JSON-only mode, grace 0). On the SDK's path the
second request took the first one's place in the response routing, and the first POST was never
answered (H5 #1). The first call is held by the server (`tests.long_changes.Hold`) while the
second is posted: no timing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from service.app import VaultgateApp
from service.serve import serving
from tests.conftest import Harness, settings_for, write_files
from tests.long_changes import Hold, hub_files

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
VERSION = "2025-11-25"
PATHS: dict[str, dict[str, Any]] = {
    "past the SDK": {"protocol": {"fast_calls": True}},
    "the SDK's session": {"protocol": {"fast_calls": False}},
    "JSON-only": {"protocol": {"fast_calls": False}, "http": {"json_response": True}},
    "grace 0": {"protocol": {"fast_calls": True}, "http": {"sse_grace_seconds": 0}},
}


def _messages(response: httpx2.Response) -> list[dict[str, Any]]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return [
            json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:") and line[5:].strip()
        ]
    return [response.json()]


def _call(rid: Any, tool: str, **arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


@pytest.mark.parametrize("path", list(PATHS))
async def test_a_second_request_with_an_id_in_flight_is_refused_and_the_first_is_answered(
    tmp_path: Path, path: str
) -> None:
    root = tmp_path / "hub"
    root.mkdir()
    write_files(root, hub_files(20))
    hold = Hold("prepare", 1, label="rename_note")
    settings = settings_for(root, **PATHS[path])
    app = VaultgateApp(settings, step_hook=hold)
    async with serving(settings, app) as (url, _), httpx2.AsyncClient(timeout=60) as http:
        await Harness(app, root).indexed()
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        }
        opened = await http.post(url, json=init, headers=HEADERS)
        session = {**HEADERS, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": VERSION}
        await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
        first: list[httpx2.Response] = []

        async def rename() -> None:
            first.append(
                await http.post(url, json=_call(9, "rename_note", path="Hub", new_path="Centre"), headers=session)
            )

        with anyio.fail_after(60):  # a bound on the hang this test is about, not a timing
            async with anyio.create_task_group() as tg:
                tg.start_soon(rename)
                await hold.reached.wait()  # request 9 is in flight
                for rid in (9, "9"):
                    again = await http.post(url, json=_call(rid, "read_note", path="Other"), headers=session)
                    assert again.status_code == 400, (rid, again.text)
                    refused = again.json()
                    assert refused["id"] == rid and refused["error"]["code"] == -32600, refused
                    assert "in flight" in refused["error"]["message"]
                other = await http.post(url, json=_call(10, "read_note", path="Other"), headers=session)
                assert other.status_code == 200 and _messages(other)[-1]["id"] == 10
                hold.release.set()
        answer = [m for m in _messages(first[0]) if m.get("id") == 9]
        assert len(answer) == 1 and "result" in answer[0], answer
        assert not answer[0]["result"].get("isError"), answer[0]
        assert (root / "Centre.md").exists()
        free = await http.post(url, json=_call(9, "read_note", path="Centre"), headers=session)
        assert free.status_code == 200 and "result" in _messages(free)[-1]  # answered: 9 is in flight no more
