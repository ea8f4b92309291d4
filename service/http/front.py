"""The HTTP request front: every JSON-RPC message POSTed to the MCP path is parsed and validated
once (`service.protocol.framing`) before the Streamable HTTP transport and its fast path see it.

An ASGI middleware behind the edge. For a POST to the MCP path it reads the body, bounded by
`max_body`, and answers what the server proper must never see, as the SDK answers such a
message, with a JSON-RPC error whose id is null:
- an Accept header without `application/json` (and, unless the transport answers JSON only,
  `text/event-stream`): 406, `-32600` (the SDK's 2026-07-28 entry answered with no body);
- a Content-Type other than `application/json` (the transport's own test): 415, `-32600` (the
  SDK's transport security answered a plain-text 400 first). Media types are case-insensitive
  (RFC 9110): `Application/JSON` is JSON, passed on written in lower case, as both SDK checks
  compare it;
- a body over `max_body` (by Content-Length, or as it arrives): 413, `-32600`;
- not strict JSON (malformed, `NaN`/`Infinity`, a lone surrogate, nested deeper than the
  limit): 400, `-32700`;
- not one valid JSON-RPC 2.0 message (a batch, no `"jsonrpc": "2.0"`, a request id that is not
  a string or an integer — which the SDK took for a notification and never answered): 400,
  `-32600`.
The answer is a complete response, so the connection stays open for the client's next request
(the rest of an oversized body is read and dropped by the server). Anything else is passed on
with its body replayed unchanged; the transport parses it again with the SDK's own parser.
A message that is no request (a notification, a response) is marked in the scope (`NO_ANSWER`):
the transport answers it 202 on its own path in every mode (`service.http.transport`).
A client that goes away before its body is complete is not passed on: there is no message to
serve and no one to answer (the transport read the cut body, raised `ClientDisconnect` and
logged it as a server error with its traceback, and its session was handed the exception).

A message POSTed with an `MCP-Protocol-Version` header that names no version the server speaks
(garbage, empty, a future date) is answered 400 (both revisions: "If the server receives a
request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with 400 Bad
Request") with `-32022` "Unsupported protocol version", naming the header and its value, and
`data: {"supported": [...], "requested": ...}` as the SDK's 2026-07-28 rejection has, listing
every version served (`SUPPORTED_PROTOCOL_VERSIONS`). The SDK routed such a POST to its
2026-07-28 entry, which told a handshake-era message (`initialize`, a `tools/list` without an
envelope) that `params._meta` must carry a protocol version. A message that carries a
2026-07-28 envelope (`params._meta` with a protocol version) is passed on: the SDK's own ladder
tells it the header and the envelope disagree, or that the version is unsupported. A GET or
DELETE with such a header is answered the same (id null; the SDK answered 405, `Allow: POST`).

A GET to the MCP path (the stream for server-initiated messages) loses its `Last-Event-ID`
header here: the server keeps no event store, so its streams carry no event ids and there is
nothing after any id to replay (resumption is optional in both protocol revisions). The SDK's
transport sent no response at all for such a GET (uvicorn's plain-text 500); it now opens the
stream as it does for a GET without the header.
"""

from __future__ import annotations

from typing import Any

from mcp_types import PROTOCOL_VERSION_META_KEY
from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.http.stops import REQUEST
from service.protocol.framing import INVALID_REQUEST, UNSUPPORTED_VERSION, Refused, read_message, too_large

__all__ = ["RequestFront"]

UNSUPPORTED = Refused(INVALID_REQUEST, "Content-Type must be application/json", 415)
NO_ANSWER = "vaultgate.no_answer"  # scope key: the POSTed message is no request (a notification or a response)
VERSION = b"mcp-protocol-version"
RESUME_FROM = b"last-event-id"  # dropped from a GET: no event store, nothing to replay (docstring)


class RequestFront:
    def __init__(self, app: ASGIApp, *, path: str, max_body: int, json_response: bool = False) -> None:
        """`json_response`: the transport answers with JSON only, so a client need not accept SSE."""
        self.app = app
        self.path = path.rstrip("/") or "/"
        self.max_body = max_body
        self.json_response = json_response
        wanted = "application/json" if json_response else "both application/json and text/event-stream"
        self.unacceptable = Refused(INVALID_REQUEST, f"Not Acceptable: the client must accept {wanted}", 406)

    def _acceptable(self, scope: Scope) -> bool:
        """The SDK's test (`check_accept_headers`, both eras), wildcards included."""
        raw = (_header(scope, b"accept") or b"").decode("latin-1")
        types = {part.split(";")[0].strip().lower() for part in raw.split(",")}
        json_ok = bool(types & {"*/*", "application/json", "application/*"})
        sse_ok = bool(types & {"*/*", "text/event-stream", "text/*"})
        return json_ok and (sse_ok or self.json_response)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or (scope["path"].rstrip("/") or "/") != self.path:
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST":
            unknown = _unknown_version(scope)
            if unknown is not None:
                await _refuse(send, _version_refused(unknown, None))  # the SDK answered 405
                return
            if scope["method"] == "GET" and _header(scope, RESUME_FROM) is not None:
                scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k != RESUME_FROM]}
            await self.app(scope, receive, send)
            return
        if not self._acceptable(scope):  # the transport's order: Accept, then Content-Type
            await _refuse(send, self.unacceptable)
            return
        content_type = _json_content(scope)
        if content_type is None:
            await _refuse(send, UNSUPPORTED)
            return
        if content_type != _header(scope, b"content-type"):
            scope = {
                **scope,
                "headers": [(k, content_type if k == b"content-type" else v) for k, v in scope["headers"]],
            }
        declared = _content_length(scope)
        if declared is not None and declared > self.max_body:
            await _refuse(send, too_large(declared, self.max_body))
            return
        received: list[Message] = []
        body = bytearray()
        while True:
            message = await receive()
            received.append(message)
            if message["type"] != "http.request":
                return  # the client went away before its message was whole: no one to answer (docstring)
            body += message.get("body", b"")
            if len(body) > self.max_body:
                await _refuse(send, too_large(None, self.max_body))
                return
            if not message.get("more_body", False):
                parsed = read_message(body, max_bytes=self.max_body)
                if isinstance(parsed, Refused):
                    await _refuse(send, parsed)
                    return
                unknown = _unknown_version(scope)
                if unknown is not None and not _enveloped(parsed):  # else the SDK's ladder answers (docstring)
                    await _refuse(send, _version_refused(unknown, parsed.get("id")))
                    return
                if "method" not in parsed or "id" not in parsed:
                    scope = {**scope, NO_ANSWER: True}  # the transport answers it 202 (`service.http.transport`)
                else:  # named for an answer the server's stop may have to give it (`service.http.stops`)
                    params = parsed.get("params")
                    tool = params.get("name") if isinstance(params, dict) else None
                    scope = {
                        **scope,
                        REQUEST: (parsed["id"], parsed["method"], tool if isinstance(tool, str) else None),
                    }
                break

        async def replay() -> Message:
            return received.pop(0) if received else await receive()

        await self.app(scope, replay, send)


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


def _json_content(scope: Scope) -> bytes | None:
    """The Content-Type to pass on when both SDK checks accept it, its media types in lower case:
    its transport security's (the value starts with `application/json`, any case) and its
    transport's (`application/json` among the types, as written); else None."""
    raw = (_header(scope, b"content-type") or b"").decode("latin-1")
    media, sep, params = raw.partition(";")
    media = media.lower()
    if media.startswith("application/json") and any(part.strip() == "application/json" for part in media.split(",")):
        return (media + sep + params).encode("latin-1")
    return None


def _content_length(scope: Scope) -> int | None:
    raw = _header(scope, b"content-length")
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def _unknown_version(scope: Scope) -> str | None:
    """The request's `MCP-Protocol-Version` header when it names no version served, else None."""
    raw = _header(scope, VERSION)
    if raw is None:
        return None
    version = raw.decode("latin-1")
    return None if version in SUPPORTED_PROTOCOL_VERSIONS else version


def _enveloped(message: dict[str, Any]) -> bool:
    """`message` carries a 2026-07-28 envelope: `params._meta` holds a protocol version."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta


def _version_refused(requested: str, request_id: Any) -> Refused:
    """400 `-32022` for an `MCP-Protocol-Version` header naming no version served (docstring)."""
    supported = list(SUPPORTED_PROTOCOL_VERSIONS)
    reason = f"the MCP-Protocol-Version header is {requested!r}, and this server supports {', '.join(supported)}"
    data = {"supported": supported, "requested": requested}
    return Refused(UNSUPPORTED_VERSION, reason, 400, request_id, data)


async def _refuse(send: Send, refused: Refused) -> None:
    await _send(send, refused.status, refused.body())


async def _send(send: Send, status: int, data: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode("ascii"))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
