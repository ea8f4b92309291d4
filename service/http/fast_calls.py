"""The Streamable HTTP fast path: a plain `tools/call` on a 2025-era session answered without the
MCP SDK's session machinery (`[protocol] fast_calls`).

`LazyStreamTransport` (`service.http.transport`) gives each session one `SessionFastCalls`. A
request POST has passed everything the transport checks first — the edge (Host/Origin, the
bearer token and the principal), the request front (`service.http.front`: the one framing
step, `service.protocol.framing`, that no fast path skips), the manager's session lookup (404
unknown, 400 missing), its owner and protocol-version rules, Accept and Content-Type, the JSON
and JSON-RPC shape — when the transport asks `plain_call`. A call qualifies when the session's
`initialize` was answered with a result (as plain JSON, or on the stream it got once past the
grace period) and `FastPath.plain_call` holds, told whether that `initialize` declared
`elicitation` (`service.protocol.fast_path`: which calls, and the JSON the SDK would write); it
then runs through the dispatch chain in the POST's own task and is answered as the transport
answers any call: `application/json` when done within the grace period, else an SSE stream
opened then (`LazyStreamTransport._answer_fast`). Everything else goes to the SDK's session.

As on the SDK's path: the principal comes from the edge (the ASGI scope); the caller's
read-your-writes mark is keyed by the session id; an exception raised by the chain is answered
as a JSON-RPC error; a `notifications/cancelled` POSTed for a call running here stops it and
the call is answered `-32800 Request cancelled` (the 2025-era wire ends a request only with an
answer). The 2026-07-28 entry (sessionless, per-request envelope) has its own:
`service.http.modern_calls`.

A session's first `tools/list` (no cursor, no params) is answered here too, from the answers
shipped with the package (`service.protocol.shipped_tools_list`, the SDK's own answer for each
handshake version, checked current by tests/contract), when the server's settings are those the
table was made under (`ShippedLists`) and the SDK's server adds nothing per request
(`FastPath.enabled`, no global tracer): building that list imports every domain package, ~0.3 s
at a warm restart that an SDK client pays before its first call returns (it lists the tools to
check the call's output schema). Anything else is the SDK's answer, as before.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
from mcp.server.streamable_http import REQUEST_CANCELLED
from mcp.shared.dispatcher import as_request_id, coerce_request_id
from mcp_types import (
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
)

from service.protocol.fast_path import METHOD, FastPath, PlainCall, error_data, global_tracing, result_body
from service.protocol.handshake import declares_elicitation
from service.protocol.shipped_tools_list import ShippedToolsList

LIST_METHOD = "tools/list"


class ShippedLists:
    """The package's `tools/list` answers for a server with these settings (`list_settings`:
    `shipped_tools_list.list_settings` of them); each version's answer parsed once, when first asked."""

    def __init__(self, list_settings: str, table: ShippedToolsList | None = None) -> None:
        self.list_settings = list_settings
        self._table = table
        self._parsed: dict[str, dict[str, Any] | None] = {}

    def answer(self, version: str, params: Any) -> dict[str, Any] | None:
        """The `result` the SDK would answer this first `tools/list` of a session negotiated at
        `version` with, or None (a cursor or other params, other settings, another version)."""
        if params not in (None, {}):
            return None
        if version not in self._parsed:
            if self._table is None:
                self._table = ShippedToolsList()
            text = self._table.answer(version, None, self.list_settings)
            self._parsed[version] = json.loads(text) if text is not None else None
        return self._parsed[version]


class SessionFastCalls:
    """The fast path of one 2025-era session (request ids are the session's own)."""

    def __init__(self, path: FastPath, lists: ShippedLists | None = None) -> None:
        """`lists`: the shipped `tools/list` answers for this server's settings (None: the SDK lists)."""
        self.path = path
        self.lists = lists
        self.handshake = False  # the session's `initialize` was answered with a result
        self.can_elicit = False  # its `initialize` declared the `elicitation` capability
        self.version: str | None = None  # the protocol version that answer negotiated
        self.answered = 0
        self._inflight: dict[Any, anyio.CancelScope] = {}

    def initialized(self, answered: bool, params: Any, result: Any = None) -> None:
        """The session's `initialize` (with `params`) was answered (JSON or a stream): with a result
        (`answered`, the answer's `result`) or an error."""
        self.handshake = answered
        self.can_elicit = declares_elicitation(params)
        version = result.get("protocolVersion") if answered and isinstance(result, dict) else None
        self.version = version if isinstance(version, str) else None

    def listed(self, message: JSONRPCRequest) -> dict[str, Any] | None:
        """The shipped answer's `result` for a `tools/list` of this session, or None (the SDK's)."""
        if self.lists is None or not self.handshake or self.version is None or message.method != LIST_METHOD:
            return None
        if not self.path.enabled or global_tracing():
            return None
        return self.lists.answer(self.version, message.params)

    def plain_call(self, message: JSONRPCRequest) -> PlainCall | None:
        if not self.handshake or message.method != METHOD:
            return None
        return self.path.plain_call(message.params, can_elicit=self.can_elicit)

    def cancel(self, message: JSONRPCMessage) -> bool:
        """A `notifications/cancelled` for a call running here: it stops (True), else False."""
        if not isinstance(message, JSONRPCNotification) or message.method != "notifications/cancelled":
            return False
        params = message.params if isinstance(message.params, dict) else {}
        rid = as_request_id(params.get("requestId"))
        scope = self._inflight.get(coerce_request_id(rid)) if rid is not None else None
        if scope is None:
            return False
        scope.cancel()
        return True

    def stop_all(self) -> None:
        """The session ended: every call running here stops (each is answered `-32800`)."""
        for scope in list(self._inflight.values()):
            scope.cancel()

    async def answer(self, call: PlainCall, message: JSONRPCRequest, request: Any, version: str) -> JSONRPCMessage:
        """The JSON-RPC answer to `message`, run for the caller of `request` (the HTTP request)."""
        key = coerce_request_id(message.id)
        with anyio.CancelScope() as scope:
            self._inflight[key] = scope
            try:
                result = await self.path.run(call, message.id, request)
                body = result_body(result, version)
            except Exception as exc:  # noqa: BLE001 - the SDK's exception-to-wire boundary, mirrored
                return JSONRPCError(jsonrpc="2.0", id=message.id, error=error_data(exc))
            finally:
                if self._inflight.get(key) is scope:
                    del self._inflight[key]
            self.answered += 1
            return JSONRPCResponse(jsonrpc="2.0", id=message.id, result=body)
        cancelled = ErrorData(code=REQUEST_CANCELLED, message="Request cancelled")
        return JSONRPCError(jsonrpc="2.0", id=message.id, error=cancelled)
