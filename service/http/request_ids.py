"""JSON-RPC request ids at the HTTP edge: a request whose `id` is not a string or an integer
gets `-32600 Invalid Request`, not silence.

MCP and JSON-RPC 2.0 allow a request id to be a string or an integer (MCP: never null). The
SDK's Streamable HTTP transport reads a message with any other id (an object, an array, a
boolean, null, a float) as a notification, answers HTTP 202 and never replies, so the client
waits forever. This ASGI middleware reads the body of a POST to the MCP path (bounded by
`max_body`: a larger body goes through unread and the transport refuses it), and answers such a
message, or a batch holding one, with HTTP 400 and a JSON-RPC error whose id is null. Anything
else (valid requests, notifications, responses to the server's own requests, unparseable JSON,
which the transport reports itself) is passed on with its body replayed unchanged.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.protocol.request_ids import bad_request_id, invalid_request

__all__ = ["RequestIdGuard", "bad_request_id"]


class RequestIdGuard:
    def __init__(self, app: ASGIApp, *, path: str, max_body: int) -> None:
        self.app = app
        self.path = path.rstrip("/") or "/"
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or (scope["path"].rstrip("/") or "/") != self.path:
            await self.app(scope, receive, send)
            return
        received: list[Message] = []
        body = bytearray()
        complete = False
        while len(body) <= self.max_body:
            message = await receive()
            received.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body", False):
                complete = True
                break
        reason = _reason(bytes(body)) if complete else None
        if reason is not None:
            await _invalid_request(send, reason)
            return

        async def replay() -> Message:
            return received.pop(0) if received else await receive()

        await self.app(scope, replay, send)


def _reason(body: bytes) -> str | None:
    try:
        payload = json.loads(body)
    except ValueError:
        return None
    return bad_request_id(payload)


async def _invalid_request(send: Send, reason: str) -> None:
    data = json.dumps(invalid_request(reason)).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode("ascii"))]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": data})
