"""`LazyStreamTransport` in-process: the test plays the session's server loop (it reads the
dispatched request and writes what the server would send), so the order of messages, not time,
decides each answer: the response first is one JSON body; a related notification first opens an
SSE stream carrying it and then the response; a response still missing when the grace period ends
gets the stream (the test answers only once the stream's headers went out); a session ended with
the request in flight is a JSON-RPC error, never a hang."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp_types import JSONRPCNotification, JSONRPCRequest, JSONRPCResponse
from starlette.types import Message

from service.http.front import NO_ANSWER
from service.http.transport import LazyStreamTransport

SESSION = "s1"
CALL = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "read_note", "arguments": {}}}
Server = Callable[[Any, Any, anyio.Event, LazyStreamTransport], Awaitable[None]]


class Reply:
    """What the transport sent: status, content type, body; `started` once the headers went out."""

    def __init__(self) -> None:
        self.status = 0
        self.headers: dict[str, str] = {}
        self.body = b""
        self.started = anyio.Event()

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {k.decode().lower(): v.decode() for k, v in message["headers"]}
            self.started.set()
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")

    @property
    def kind(self) -> str:
        return self.headers.get("content-type", "").split(";")[0]

    def events(self) -> list[dict[str, Any]]:
        lines = self.body.decode().replace("\r\n", "\n").split("\n")
        return [json.loads(line[5:]) for line in lines if line.startswith("data:") and line[5:].strip()]


def _post_scope() -> dict[str, Any]:
    """The ASGI scope of a POST to the connected session's MCP path."""
    return {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [
            (b"accept", b"application/json, text/event-stream"),
            (b"content-type", b"application/json"),
            (b"mcp-session-id", SESSION.encode()),
            (b"mcp-protocol-version", b"2025-11-25"),
        ],
        "query_string": b"",
    }


@asynccontextmanager
async def post(grace: float, server: Server) -> AsyncIterator[Reply]:
    """POSTs `CALL` to a connected transport while `server` plays the session's message loop."""
    transport = LazyStreamTransport(mcp_session_id=SESSION, grace=grace)
    reply = Reply()
    body = json.dumps(CALL).encode()
    scope = _post_scope()
    sent = False
    done = anyio.Event()

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async with transport.connect() as (read, write), anyio.create_task_group() as tg:
        tg.start_soon(server, read, write, reply.started, transport)
        await transport.handle_request(scope, receive, reply.send)
        done.set()
        tg.cancel_scope.cancel()
    yield reply


async def request_of(read: Any) -> JSONRPCRequest:
    message = await read.receive()
    assert isinstance(message, SessionMessage) and isinstance(message.message, JSONRPCRequest)
    return message.message


def response_to(request: JSONRPCRequest) -> SessionMessage:
    return SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=request.id, result={"ok": True}))


async def answers_at_once(read: Any, write: Any, started: anyio.Event, _: LazyStreamTransport) -> None:
    await write.send(response_to(await request_of(read)))


async def reports_progress_first(read: Any, write: Any, started: anyio.Event, _: LazyStreamTransport) -> None:
    request = await request_of(read)
    params = {"progressToken": "p", "progress": 1}
    note = JSONRPCNotification(jsonrpc="2.0", method="notifications/progress", params=params)
    await write.send(SessionMessage(note, metadata=ServerMessageMetadata(related_request_id=request.id)))
    await write.send(response_to(request))


async def answers_once_streaming(read: Any, write: Any, started: anyio.Event, _: LazyStreamTransport) -> None:
    request = await request_of(read)
    await started.wait()  # nothing is sent until the transport gave up waiting and opened the stream
    await write.send(response_to(request))


async def ends_the_session(read: Any, write: Any, started: anyio.Event, transport: LazyStreamTransport) -> None:
    await request_of(read)
    await transport.terminate()  # what a DELETE or the idle timeout does


async def test_a_response_that_comes_first_is_one_json_body() -> None:
    async with post(60.0, answers_at_once) as reply:
        assert reply.status == 200 and reply.kind == "application/json"
        assert reply.headers["mcp-session-id"] == SESSION
        assert json.loads(reply.body) == {"jsonrpc": "2.0", "id": 7, "result": {"ok": True}}


async def test_a_notification_first_opens_a_stream_that_ends_with_the_response() -> None:
    async with post(60.0, reports_progress_first) as reply:
        assert reply.status == 200 and reply.kind == "text/event-stream"
        events = reply.events()
        assert [e.get("method") for e in events] == ["notifications/progress", None]
        assert events[1] == {"jsonrpc": "2.0", "id": 7, "result": {"ok": True}}


async def test_a_response_missing_after_the_grace_period_gets_a_stream() -> None:
    async with post(0.001, answers_once_streaming) as reply:
        assert reply.kind == "text/event-stream"
        assert reply.events() == [{"jsonrpc": "2.0", "id": 7, "result": {"ok": True}}]


async def test_grace_zero_is_the_sdks_stream_for_every_request() -> None:
    async with post(0, answers_at_once) as reply:
        assert reply.kind == "text/event-stream"
        assert reply.events() == [{"jsonrpc": "2.0", "id": 7, "result": {"ok": True}}]


async def test_a_session_ended_in_flight_is_an_error_not_a_hang() -> None:
    async with post(60.0, ends_the_session) as reply:
        assert reply.status == 200 and reply.kind == "application/json"  # an answer, not a server failure
        assert json.loads(reply.body)["error"]["message"] == "Session terminated before the request completed"


@pytest.mark.parametrize("grace", [60.0, 0.001], ids=["json", "stream"])
async def test_an_answered_response_lets_its_body_go(grace: float) -> None:
    """The SDK's message router keeps the last message it routed until the session's next one;
    once the answer is on the wire, what it keeps must no longer hold the body."""
    kept: list[SessionMessage] = []

    async def answers_and_keeps(read: Any, write: Any, started: anyio.Event, _: LazyStreamTransport) -> None:
        request = await request_of(read)
        if grace < 1:
            await started.wait()  # the stream is open before the answer comes
        kept.append(response_to(request))
        await write.send(kept[0])

    async with post(grace, answers_and_keeps) as reply:
        body = json.loads(reply.body) if reply.kind == "application/json" else reply.events()[-1]
        assert body == {"jsonrpc": "2.0", "id": 7, "result": {"ok": True}}
        assert reply.kind == ("application/json" if grace > 1 else "text/event-stream")
        assert isinstance(kept[0].message, JSONRPCResponse) and kept[0].message.result == {}


@pytest.mark.parametrize("json_response", [False, True], ids=["sse-mode", "json-mode"])
async def test_a_notification_posted_as_the_session_ends_is_accepted_without_a_server_error(
    caplog: pytest.LogCaptureFixture, json_response: bool
) -> None:
    """A notification POST checked while its session was alive, whose session then ended (a
    DELETE racing it; on a real server: 12 of 20 POSTs racing a DELETE, 30 times in a row) was
    answered 202, then handing it to the closed session raised: the transport logged 'error
    handling a POST request', tried to send a 500 after the 202 (RuntimeError) and uvicorn logged
    'Exception in ASGI application'. It is dropped now: it was answered, and there is no session.
    In JSON-response mode the SDK's own handler answered such a POST (with the same race); the
    request front marks a message that is no request (`NO_ANSWER`) and it is answered here too."""
    transport = LazyStreamTransport(mcp_session_id=SESSION, grace=60.0, is_json_response_enabled=json_response)
    reply = Reply()
    body = b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}'
    scope = {**_post_scope(), NO_ANSWER: True}  # as the request front marks it

    async def receive() -> Message:  # the session ends while the body is read: after the checks
        await transport.terminate()
        return {"type": "http.request", "body": body, "more_body": False}

    async with transport.connect():
        await transport.handle_request(scope, receive, reply.send)
    assert reply.status == 202
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
