"""The HTTP fast path's session part: when it takes a call, and a cancelled call's answer (the
wire against the SDK's session: tests/e2e/test_fast_calls_http_e2e.py)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

import mcp_types as types
from mcp.server.streamable_http import REQUEST_CANCELLED

from service.dispatch.context import ToolResult
from service.http.fast_calls import SessionFastCalls
from service.protocol.client_log import ClientLogs
from service.protocol.fast_path import FastPath
from service.types import Principal


class _Dispatcher:
    def __init__(self) -> None:
        self.registry: dict[str, Any] = {}
        self.release = asyncio.Event()
        self.requests: list[Any] = []

    def principal_for(self, ctx: Any) -> tuple[Principal, str]:
        return Principal.local("http"), "http"

    async def call(self, tool: str, arguments: Any, **options: Any) -> ToolResult:
        self.requests.append(options["request"])
        await self.release.wait()
        return ToolResult(structured={"ok": True}, text="{}")


def _session() -> tuple[SessionFastCalls, _Dispatcher]:
    dispatcher = _Dispatcher()
    server = SimpleNamespace(middleware=[], cache_hints={}, server_info_stamp={"name": "vaultgate"})
    return SessionFastCalls(FastPath(cast(Any, dispatcher), cast(Any, server), ClientLogs())), dispatcher


def _request(rid: Any, **params: Any) -> types.JSONRPCRequest:
    return types.JSONRPCRequest(jsonrpc="2.0", id=rid, method="tools/call", params=params)


def _cancel(rid: Any) -> types.JSONRPCNotification:
    return types.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params={"requestId": rid})


async def test_nothing_runs_here_before_the_session_was_initialised() -> None:
    fast, _ = _session()
    assert fast.plain_call(_request(1, name="read_note")) is None
    fast.handshake = True
    assert fast.plain_call(_request(1, name="read_note")) is not None
    assert fast.plain_call(types.JSONRPCRequest(jsonrpc="2.0", id=2, method="tools/list")) is None


async def test_a_cancelled_call_is_answered_request_cancelled() -> None:
    fast, dispatcher = _session()
    fast.handshake = True
    message = _request("r", name="read_note", arguments={})
    call = fast.plain_call(message)
    assert call is not None
    http_request = SimpleNamespace(scope={}, headers={})
    answering = asyncio.create_task(fast.answer(call, message, http_request, "2025-11-25"))
    for _ in range(10):
        await asyncio.sleep(0)
    assert dispatcher.requests[0].request is http_request and dispatcher.requests[0].session is None
    assert not fast.cancel(_cancel("other")) and not fast.cancel(_request(3, name="x"))
    assert fast.cancel(_cancel("r"))
    answer = await answering
    assert answer == types.JSONRPCError(
        jsonrpc="2.0", id="r", error=types.ErrorData(code=REQUEST_CANCELLED, message="Request cancelled")
    )
    assert not fast.cancel(_cancel("r"))  # over: nothing left to cancel


async def test_an_answered_call_is_the_sdk_shape() -> None:
    fast, dispatcher = _session()
    fast.handshake = True
    dispatcher.release.set()
    message = _request(7, name="read_note", arguments={})
    call = fast.plain_call(message)
    assert call is not None
    answer = await fast.answer(call, message, SimpleNamespace(scope={}, headers={}), "2025-11-25")
    expected = {"content": [{"text": "{}", "type": "text"}], "isError": False, "structuredContent": {"ok": True}}
    assert answer == types.JSONRPCResponse(jsonrpc="2.0", id=7, result=expected)
    assert fast.answered == 1
