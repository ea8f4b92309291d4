"""The HTTP request front (service/http/front.py) marks a POSTed message that is no request
(`NO_ANSWER`: a notification or a response to the server), so the transport answers it 202 on
its own path in every mode; a request is passed on unmarked, its body replayed unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from service.http.front import NO_ANSWER, RequestFront


@pytest.mark.parametrize(
    ("message", "marked"),
    [
        ({"jsonrpc": "2.0", "id": 1, "method": "ping"}, False),
        ({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}, True),
        ({"jsonrpc": "2.0", "id": 1, "result": {}}, True),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "no"}}, True),
    ],
)
async def test_a_message_that_is_no_request_is_marked(message: dict[str, Any], marked: bool) -> None:
    body = json.dumps(message).encode()
    seen: list[tuple[Scope, bytes]] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append((scope, (await receive())["body"]))

    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(_: Message) -> None:
        raise AssertionError("the front answered")

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [(b"accept", b"application/json, text/event-stream"), (b"content-type", b"application/json")],
    }
    await RequestFront(app, path="/mcp", max_body=1 << 20)(scope, receive, send)
    ((passed, replayed),) = seen
    assert bool(passed.get(NO_ANSWER)) is marked and replayed == body
