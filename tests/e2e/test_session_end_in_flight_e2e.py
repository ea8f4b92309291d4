"""A client that ends its session (DELETE) with a call in flight: the call stops and its POST is
answered the same way on every path, `-32603` "Session terminated before the request completed"
with the request's id, as JSON (HTTP 200) before the grace period or as the last event of the
stream after it (H5 #2). The fast path ran the call to the end for a session that no longer
existed; the SDK's path answered id null, or closed the stream with no answer. The call is held by
the server (`tests.long_changes.Hold`) while the session ends: no timing."""

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
ENDED = {"code": -32603, "message": "Session terminated before the request completed"}


def _messages(kind: str, body: bytes) -> list[dict[str, Any]]:
    if kind.startswith("text/event-stream"):
        lines = body.decode().splitlines()
        return [json.loads(line[5:]) for line in lines if line.startswith("data:") and line[5:].strip()]
    return [json.loads(body)]


@pytest.mark.parametrize("fast", [True, False], ids=["past the SDK", "the SDK's session"])
@pytest.mark.parametrize("grace", [60.0, 0.01], ids=["before the grace period", "on its stream"])
async def test_ending_the_session_stops_its_call_and_answers_it(tmp_path: Path, fast: bool, grace: float) -> None:
    root = tmp_path / "hub"
    root.mkdir()
    write_files(root, hub_files(20))
    hold = Hold("prepare", 1, label="rename_note")
    settings = settings_for(root, protocol={"fast_calls": fast}, http={"sse_grace_seconds": grace})
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
        call = {"name": "rename_note", "arguments": {"path": "Hub", "new_path": "Centre"}}
        streaming = anyio.Event()
        got: list[tuple[int, str, bytes]] = []

        async def rename() -> None:
            body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": call}
            async with http.stream("POST", url, json=body, headers=session) as response:
                streaming.set()
                got.append((response.status_code, response.headers["content-type"], await response.aread()))

        with anyio.fail_after(60):  # a bound on a hang, not a timing
            async with anyio.create_task_group() as tg:
                tg.start_soon(rename)
                await hold.reached.wait()
                if grace < 1:
                    await streaming.wait()  # the call's stream is open
                deleted = await http.delete(url, headers=session)
                assert deleted.status_code == 200
            await hold.cancelled.wait()  # the call stopped
        status, kind, body = got[0]
        assert [m for m in _messages(kind, body) if m.get("id") == 9] == [{"jsonrpc": "2.0", "id": 9, "error": ENDED}]
        assert (status, kind.split(";")[0]) == ((200, "application/json") if grace > 1 else (200, "text/event-stream"))
        assert not (root / "Centre.md").exists() and (root / "Hub.md").exists()
