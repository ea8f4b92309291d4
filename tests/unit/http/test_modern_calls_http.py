"""The 2026-07-28 fast path's stream (service/http/modern_calls.py): a call that outlives the SDK's
ping interval gets the SDK's `text/event-stream` (its headers, a ping, the answer as the last
event), and a client that goes away stops the call and is answered nothing, as on the SDK's
modern entry. The wire against the SDK's entry: tests/e2e/test_modern_calls_http_e2e.py."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

import pytest
from mcp.server import _streamable_http_modern as sdk_modern
from mcp.server.lowlevel.server import Server
from mcp_types import JSONRPCResponse
from starlette.types import Message

from service.dispatch.context import ToolResult
from service.http.modern_calls import ModernCalls
from service.protocol.client_log import ClientLogs
from service.protocol.fast_path import FastPath, result_body
from service.types import Principal

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
BODY = json.dumps(
    {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "read_note", "_meta": ENVELOPE}}
).encode()
HEADERS = [
    (b"accept", b"application/json, text/event-stream"),
    (b"content-type", b"application/json"),
    (b"mcp-protocol-version", b"2026-07-28"),
    (b"mcp-method", b"tools/call"),
    (b"mcp-name", b"read_note"),
]


class _Dispatcher:
    def __init__(self) -> None:
        self.registry: dict[str, Any] = {}
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.cancelled = False

    def principal_for(self, ctx: Any) -> tuple[Principal, str]:
        return Principal.local("http"), "http"

    async def call(self, tool: str, arguments: Any, **options: Any) -> ToolResult:
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return ToolResult(structured={"ok": True}, text="{}")


class _Exchange:
    """One POST: the body, then nothing until the client goes away (`leave`)."""

    def __init__(self) -> None:
        self.sent: list[Message] = []
        self.opened = asyncio.Event()
        self.gone = asyncio.Event()
        self._body_read = False

    async def receive(self) -> Message:
        if not self._body_read:
            self._body_read = True
            return {"type": "http.request", "body": BODY, "more_body": False}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        self.sent.append(message)
        if message["type"] == "http.response.body":
            self.opened.set()


def _calls() -> tuple[ModernCalls, _Dispatcher]:
    dispatcher = _Dispatcher()
    server: Server[Any] = Server("vaultgate", get_tool_input_schema=lambda name: None)
    path = FastPath(cast(Any, dispatcher), server, ClientLogs())
    return ModernCalls(path, server, None, json=False), dispatcher


def _scope() -> dict[str, Any]:
    return {"type": "http", "method": "POST", "path": "/mcp", "headers": HEADERS, "query_string": b""}


async def test_a_call_past_the_ping_interval_gets_the_sdks_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sdk_modern, "_SSE_PING_INTERVAL", 0.01)
    calls, dispatcher = _calls()
    exchange = _Exchange()
    answering = asyncio.create_task(calls.answer(_scope(), exchange.receive, exchange.send, None))
    await exchange.opened.wait()  # the stream opened with its first ping while the call runs
    dispatcher.release.set()
    assert await answering is None
    start, *bodies = exchange.sent
    assert start == {"type": "http.response.start", "status": 200, "headers": sdk_modern._SSE_HEADERS}
    assert bodies[0] == {"type": "http.response.body", "body": b": ping\r\n\r\n", "more_body": True}
    assert all(b == bodies[0] for b in bodies[:-1])
    result = result_body(ToolResult(structured={"ok": True}, text="{}"), "2026-07-28", calls.path.server_info)
    last = sdk_modern._sse_event(JSONRPCResponse(jsonrpc="2.0", id=9, result=result))
    assert bodies[-1] == {"type": "http.response.body", "body": last, "more_body": False}
    assert calls.answered == 1


async def test_a_client_that_goes_away_stops_the_call_and_gets_nothing() -> None:
    calls, dispatcher = _calls()
    exchange = _Exchange()
    answering = asyncio.create_task(calls.answer(_scope(), exchange.receive, exchange.send, None))
    await dispatcher.started.wait()
    exchange.gone.set()
    assert await answering is None
    assert dispatcher.cancelled and exchange.sent == [] and calls.answered == 0


async def test_a_call_done_within_the_interval_is_plain_json() -> None:
    calls, dispatcher = _calls()
    dispatcher.release.set()
    exchange = _Exchange()
    assert await calls.answer(_scope(), exchange.receive, exchange.send, None) is None
    start, body = exchange.sent
    assert start["status"] == 200 and (b"content-type", b"application/json") in start["headers"]
    assert json.loads(body["body"])["result"]["resultType"] == "complete"


async def test_a_ping_timer_that_fired_but_never_ran_leaves_the_answer_plain_json(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The ping interval passes while the loop is busy: the ping task exists but has not run when
    the call ends and it is cancelled, so no stream was started; the answer is the plain JSON
    (it was a body without a start: uvicorn's RuntimeError, an HTTP 500; review R2 s63 #2)."""
    import time

    monkeypatch.setattr(sdk_modern, "_SSE_PING_INTERVAL", 0.01)
    calls, dispatcher = _calls()

    async def busy(tool: str, arguments: Any, **options: Any) -> ToolResult:
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        loop.call_soon(done.set_result, None)  # runs before the ping task's first step
        time.sleep(0.05)  # noqa: ASYNC251 - the loop held past the interval: the timer's callback is due
        await done
        return ToolResult(structured={"ok": True}, text="{}")

    monkeypatch.setattr(dispatcher, "call", busy)
    exchange = _Exchange()
    assert await calls.answer(_scope(), exchange.receive, exchange.send, None) is None
    kinds = [m["type"] for m in exchange.sent]
    assert kinds[0] == "http.response.start" and kinds.count("http.response.start") == 1
