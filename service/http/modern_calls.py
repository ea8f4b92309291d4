"""The Streamable HTTP fast path for 2026-07-28 clients: a plain `tools/call` POST answered
without the MCP SDK's per-request machinery (`[protocol] fast_calls`).

A 2026-07-28 request is a self-contained POST (no session; the envelope rides in `params._meta`
and the `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers). The session manager hands
every POST whose `MCP-Protocol-Version` header names no handshake-era version to the SDK's
modern entry (`mcp.server._streamable_http_modern.handle_modern_request`); `LazySessionManager`
(`service.http.transport`) asks `ModernCalls.answer` first. It makes the SDK entry's checks, in
its order, with the SDK's own functions — transport security (Content-Type, Host, Origin),
Accept (`check_accept_headers`, JSON only in JSON mode), the body (JSON, one JSON-RPC request
with an id), no routing header twice (`find_duplicated_routing_header`), the envelope and its
agreement with the headers (`classify_inbound_request`: version, method, name), the
envelope's values (`fast_path.envelope_holds`: the surface check the SDK's runner makes), the
`Mcp-Param-*` headers against the tool's schema (the SDK's `_mcp_param_rejection`) — and runs
the call through the dispatch chain when all pass, the message is exactly `jsonrpc`, `id`,
`method: "tools/call"`, `params`, and `FastPath.plain_call` holds for it (its `_meta` holds the
envelope and `vaultgate/…` keys only: a per-request log level or a progress token is the SDK's;
the call's own client capabilities say whether it declared `elicitation`). Anything else — a
check that fails included — is handed to the SDK's entry with the body replayed, so every
refusal is the SDK's own answer. The edge (Host/Origin, the bearer token and the principal)
and the request front (`service.http.front`) have run before either.

The answer is the SDK's: the `CallToolResult` of `service.protocol.fast_path.result_body` at the
envelope's version (`resultType`, the server's `serverInfo` stamp), or the error a handler
exception maps to (`modern_error_data`), written by the SDK entry's own writer (`_write`: the
table-mapped HTTP status, `json.dumps` of the message). Out of JSON mode the SDK defers its
stream: a call done within its ping interval is answered as JSON, else `text/event-stream`
opens with a ping every interval and the answer is the last event; a client that goes away
stops the call and is answered nothing. The same here, with one timer and one task watching
for the disconnect.

A first-page `tools/list` (no cursor, only the envelope in `_meta`, no client log level set)
that passes the same checks is answered here too, once the SDK has answered one at that
version: its `result` is kept as the SDK wrote it (`_keep`: a 200 as JSON) and given again with
the request's id, byte for byte. The SDK builds that list at every 2026-07-28 request (3.3 ms of
server CPU at 10k notes, against 0.26 ms kept), and its client lists the tools again before
each call of a tool the lean list does not show, to check the answer against its output
schema. The list is the same for every caller (the tools and the `tool_facade` and
`tool_visibility` settings; `service.protocol.shipped_tools_list`); a cursor, a log level or a
global tracer: the SDK answers.
"""

from __future__ import annotations

import asyncio
import json as jsonlib
import logging
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server import _streamable_http_modern as modern
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.inbound import InboundModernRoute, classify_inbound_request, find_duplicated_routing_header
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from service.protocol.fast_calls import ENVELOPE, MODERN_META
from service.protocol.fast_path import (
    METHOD,
    FastPath,
    PlainCall,
    envelope_holds,
    error_data,
    global_tracing,
    result_body,
)

if TYPE_CHECKING:
    from mcp.server.lowlevel.server import Server

log = logging.getLogger(__name__)
LIST_METHOD = "tools/list"


class ModernCalls:
    """The fast path of a server's 2026-07-28 entry."""

    def __init__(
        self,
        path: FastPath,
        server: Server[Any],
        security: TransportSecuritySettings | None,
        *,
        json: bool,
    ) -> None:
        """`json`: the server answers with JSON only (the SDK's JSON-response mode)."""
        self.path = path
        self.server = server
        self.security = TransportSecurityMiddleware(security)
        self.json_response = json
        self.answered = 0  # calls answered here
        self.lists: dict[str, bytes] = {}  # protocol version -> the SDK's first `tools/list` result (JSON)

    async def answer(
        self, scope: Scope, receive: Receive, send: Send, lifespan_state: Any
    ) -> tuple[Receive, Send] | None:
        """Answer the POST of `scope` here (None), or the `receive` the SDK's entry should read it
        from (its body replayed when read here) and the `send` it should answer through."""
        if scope["method"] != "POST" or not self.path.enabled or self.path.server_info is None or global_tracing():
            return receive, send
        request = Request(scope, receive)
        if await self.security.validate_request(request, is_post=True) is not None:
            return receive, send
        has_json, has_sse = check_accept_headers(request)
        if not has_json or (not self.json_response and not has_sse):
            return receive, send
        body = await request.body()
        replay = _replay(body, receive)
        try:
            decoded = jsonlib.loads(body)
        except (ValueError, RecursionError):
            return replay, send
        listing = self._listing(decoded, request)
        if listing is not None:
            return await self._list(*listing, scope, replay, send)
        plain = await self._plain(decoded, request, lifespan_state)
        if plain is None:
            return replay, send
        req, call, version = plain
        if self.json_response:
            await modern._write(await self._run(req, call, request, version), scope, receive, send)
        else:
            await self._deferred(req, call, request, version, scope, receive, send)
        return None

    def _listing(self, decoded: Any, request: Request) -> tuple[JSONRPCRequest, str] | None:
        """A first-page `tools/list` (no cursor, the envelope alone in `_meta`) that passes the
        SDK entry's checks, and its version; else None."""
        routed = _routed(decoded, request, LIST_METHOD)
        if routed is None:
            return None
        req, verdict = routed
        params = decoded.get("params")
        meta = params.get("_meta") if isinstance(params, dict) and params.keys() <= {"_meta"} else None
        if not isinstance(meta, dict) or meta.keys() - MODERN_META or self.path.client_logs.levels_set():
            return None
        if not envelope_holds(LIST_METHOD, verdict.protocol_version, params):
            return None  # the envelope's values: the SDK refuses them
        return req, verdict.protocol_version

    async def _list(
        self, req: JSONRPCRequest, version: str, scope: Scope, receive: Receive, send: Send
    ) -> tuple[Receive, Send] | None:
        """The SDK's answer to this version's first `tools/list` as it wrote it the first time
        (the list is the same for every caller: the tools and the settings' facade and
        visibility), or the SDK's entry to answer it, its answer kept."""
        kept = self.lists.get(version)
        if kept is None:
            return receive, self._keep(version, send)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("tools/list %s answered past the SDK", jsonlib.dumps(req.id))
        answer = b'{"jsonrpc":"2.0","id":%s,"result":%s}' % (jsonlib.dumps(req.id).encode(), kept)
        await Response(answer, status_code=modern._OK_STATUS, media_type="application/json")(scope, receive, send)
        return None

    def _keep(self, version: str, send: Send) -> Send:
        """`send`, keeping the answer's `result` for `version` when it is one as JSON (200)."""
        chunks: list[bytes] = []
        as_json: list[bool] = []

        async def keep(message: Message) -> None:
            if message["type"] == "http.response.start":
                kind = dict(message.get("headers", [])).get(b"content-type", b"")
                as_json.append(message["status"] == modern._OK_STATUS and kind == b"application/json")
            elif message["type"] == "http.response.body" and as_json == [True]:
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    self._kept(version, b"".join(chunks))
            await send(message)

        return keep

    def _kept(self, version: str, body: bytes) -> None:
        try:
            message = jsonlib.loads(body)
        except ValueError:
            return
        if isinstance(message, dict) and message.keys() == {"jsonrpc", "id", "result"}:
            # the SDK's writer is `json.dumps(..., separators=(",", ":"))`: written again the same
            self.lists[version] = jsonlib.dumps(message["result"], separators=(",", ":")).encode()

    async def _plain(
        self, decoded: Any, request: Request, lifespan_state: Any
    ) -> tuple[JSONRPCRequest, PlainCall, str] | None:
        """The request (`decoded`, the POST's JSON), its call and the envelope's version when every
        check of the SDK's entry passes and the call is plain; else None (the SDK answers)."""
        routed = _routed(decoded, request, METHOD)
        if routed is None:
            return None
        req, verdict = routed
        if not envelope_holds(METHOD, verdict.protocol_version, decoded["params"]):
            return None  # the envelope's values: the SDK refuses them
        if await modern._mcp_param_rejection(self.server, request, req, verdict, lifespan_state) is not None:
            return None
        caps = verdict.client_capabilities
        can_elicit = isinstance(caps, dict) and caps.get("elicitation") is not None
        call = self.path.plain_call(req.params, can_elicit=can_elicit, envelope=MODERN_META)
        return None if call is None else (req, call, verdict.protocol_version)

    async def _run(
        self, req: JSONRPCRequest, call: PlainCall, request: Request, version: str
    ) -> JSONRPCResponse | JSONRPCError:
        """The JSON-RPC answer, as the SDK's `_to_jsonrpc_response` around `serve_one` makes it."""
        try:
            result = await self.path.run(call, req.id, request)
            body = result_body(result, version, self.path.server_info)
        except Exception as exc:  # noqa: BLE001 - the SDK's exception-to-wire boundary, mirrored
            return JSONRPCError(jsonrpc="2.0", id=req.id, error=error_data(exc, modern=True))
        self.answered += 1
        return JSONRPCResponse(jsonrpc="2.0", id=req.id, result=body)

    async def _deferred(
        self,
        req: JSONRPCRequest,
        call: PlainCall,
        request: Request,
        version: str,
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        """The SDK's SSE-mode answer: JSON when the call is done within the ping interval, else a
        stream opened then, pinged every interval, whose last event is the answer. The client
        going away stops the call (nothing is answered)."""
        loop = asyncio.get_running_loop()
        interval = modern._SSE_PING_INTERVAL
        pinger: list[asyncio.Task[None]] = []
        streaming: list[bool] = []  # the stream's start went out (a ping task cancelled before it ran sends none)

        async def ping() -> None:
            streaming.append(True)
            await send({"type": "http.response.start", "status": modern._OK_STATUS, "headers": modern._SSE_HEADERS})
            while True:
                await send({"type": "http.response.body", "body": b": ping\r\n\r\n", "more_body": True})
                await asyncio.sleep(interval)

        with anyio.CancelScope() as stop:

            async def watch() -> None:
                message: Message = {}
                while message.get("type") != "http.disconnect":
                    message = await receive()
                stop.cancel()

            watcher = loop.create_task(watch())
            timer = loop.call_later(interval, lambda: pinger.append(loop.create_task(ping())))
            try:
                answer = await self._run(req, call, request, version)
            finally:
                timer.cancel()
                watcher.cancel()
                for task in pinger:
                    task.cancel()
                    with anyio.CancelScope(shield=True):
                        await asyncio.gather(task, return_exceptions=True)
        if stop.cancelled_caught:
            return  # the client went away: the SDK's task group ends with nothing sent
        if not streaming:
            await modern._write(answer, scope, receive, send)
            return
        await send({"type": "http.response.body", "body": modern._sse_event(answer), "more_body": False})


def _routed(decoded: Any, request: Request, method: str) -> tuple[JSONRPCRequest, InboundModernRoute] | None:
    """The request and the SDK's routing verdict when the POST's JSON (`decoded`) is exactly one
    JSON-RPC request for `method` that passes the SDK entry's checks (the message, no routing
    header twice, the envelope and its agreement with the headers); else None."""
    if not isinstance(decoded, dict) or decoded.keys() != ENVELOPE or decoded.get("method") != method:
        return None
    try:
        req = JSONRPCRequest.model_validate(decoded)
    except ValidationError:
        return None
    if find_duplicated_routing_header(request.headers.items()) is not None:
        return None
    verdict = classify_inbound_request(decoded, headers=dict(request.headers))
    return (req, verdict) if isinstance(verdict, InboundModernRoute) else None


def _replay(body: bytes, receive: Receive) -> Receive:
    """`receive` with the body read here given again first."""
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay
