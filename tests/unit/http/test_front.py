"""The HTTP request front (service/http/front.py) marks a POSTed message that is no request
(`NO_ANSWER`: a notification or a response to the server), so the transport answers it 202 on
its own path in every mode; a request is passed on unmarked, its body replayed unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS
from starlette.types import Message, Receive, Scope, Send

from service.http.front import NO_ANSWER, RequestFront

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


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


@pytest.mark.parametrize(
    ("version", "message", "refused"),
    [
        ("garbage", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, True),
        ("", {"jsonrpc": "2.0", "id": "a", "method": "initialize", "params": {}}, True),
        ("2099-01-01", {"jsonrpc": "2.0", "method": "notifications/initialized"}, True),
        ("2025-06-18", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, False),
        ("2026-07-28", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, False),
        # a 2026-07-28 envelope: the SDK's ladder tells it the header disagrees
        ("garbage", {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": ENVELOPE}}, False),
    ],
)
async def test_a_version_header_naming_no_version_served_is_refused(
    version: str, message: dict[str, Any], refused: bool
) -> None:
    """400 `-32022` naming the header, its value and the versions served (the SDK's 2026-07-28
    entry answered a handshake-era message `-32602` "params._meta must be an object ...")."""
    passed: list[Scope] = []
    sent: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        passed.append(scope)

    async def receive() -> Message:
        return {"type": "http.request", "body": json.dumps(message).encode(), "more_body": False}

    async def send(sending: Message) -> None:
        sent.append(sending)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [
            (b"accept", b"application/json, text/event-stream"),
            (b"content-type", b"application/json"),
            (b"mcp-protocol-version", version.encode()),
        ],
    }
    await RequestFront(app, path="/mcp", max_body=1 << 20)(scope, receive, send)
    if not refused:
        assert passed and not sent
        return
    assert not passed and sent[0]["status"] == 400
    answer = json.loads(sent[1]["body"])
    assert answer["id"] == message.get("id")
    assert answer["error"]["code"] == -32022
    assert f"the MCP-Protocol-Version header is {version!r}" in answer["error"]["message"]
    assert answer["error"]["data"] == {"supported": list(SUPPORTED_PROTOCOL_VERSIONS), "requested": version}


async def _version_answer(method: str, body: bytes, version: bytes) -> tuple[int, list[Any], bytes]:
    sent: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        raise AssertionError("passed on")

    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(sending: Message) -> None:
        sent.append(sending)

    accept = [(b"accept", b"application/json, text/event-stream"), (b"content-type", b"application/json")]
    scope = {"type": "http", "method": method, "path": "/mcp", "headers": [*accept, (b"mcp-protocol-version", version)]}
    await RequestFront(app, path="/mcp", max_body=1 << 20)(scope, receive, send)
    return sent[0]["status"], sent[0]["headers"], sent[1]["body"]


VERSIONS = "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"
LISTED = '["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]'


async def test_the_version_refusal_bytes_on_the_wire_are_pinned() -> None:
    """The refusal goes through `Refused` as every other front refusal does (s85 P5); its bytes
    are those the hand-written answer of s84 (787ea19c) sent, quoting included."""
    status, headers, body = await _version_answer(
        "POST", b'{"jsonrpc":"2.0","id":"a1","method":"tools/list"}', 'gar"b\u00e9'.encode("latin-1")
    )
    assert (status, headers) == (400, [(b"content-type", b"application/json"), (b"content-length", b"360")])
    assert body == (
        b'{"jsonrpc": "2.0", "id": "a1", "error": {"code": -32022, "message": "Unsupported protocol version: '
        b"the MCP-Protocol-Version header is 'gar\\\"b\\u00e9', and this server supports " + VERSIONS.encode() + b'", '
        b'"data": {"supported": ' + LISTED.encode() + b', "requested": "gar\\"b\\u00e9"}}}'
    )
    status, headers, body = await _version_answer("GET", b"", b"2099-01-01")
    assert (status, headers) == (400, [(b"content-type", b"application/json"), (b"content-length", b"356")])
    assert body == (
        b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32022, "message": "Unsupported protocol version: '
        b"the MCP-Protocol-Version header is '2099-01-01', and this server supports " + VERSIONS.encode() + b'", '
        b'"data": {"supported": ' + LISTED.encode() + b', "requested": "2099-01-01"}}}'
    )
