"""The Streamable HTTP fast path: a plain `tools/call` on a 2025-era session answered without the
MCP SDK's session machinery (`[protocol] fast_calls`).

`LazyStreamTransport` (`service.http.transport`) gives each session one `SessionFastCalls`. A
request POST has passed everything the transport checks first — the edge (Host/Origin, the
bearer token and the principal), the request front (`service.http.front`: the one framing
step, `service.protocol.framing`, that no fast path skips), the manager's session lookup (404
unknown, 400 missing), its owner and protocol-version rules, Accept and Content-Type, the JSON
and JSON-RPC shape — when the transport asks `plain_call`. A call qualifies when the session's
`initialize` was answered with a result as plain JSON and `FastPath.plain_call` holds, told
whether that `initialize` declared `elicitation` (`service.protocol.fast_path`: which calls,
and the JSON the SDK would write); it then runs through the dispatch chain in the POST's own
task and is answered as the transport answers any call: `application/json` when done within the
grace period, else an SSE stream opened then (`LazyStreamTransport._answer_fast`). Everything
else goes to the SDK's session.

As on the SDK's path: the principal comes from the edge (the ASGI scope); the caller's
read-your-writes mark is keyed by the session id; an exception raised by the chain is answered
as a JSON-RPC error; a `notifications/cancelled` POSTed for a call running here stops it and
the call is answered `-32800 Request cancelled` (the 2025-era wire ends a request only with an
answer). The 2026-07-28 entry (sessionless, per-request envelope) stays the SDK's.
"""

from __future__ import annotations

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

from service.protocol.fast_path import METHOD, FastPath, PlainCall, error_data, result_body
from service.protocol.handshake import declares_elicitation


class SessionFastCalls:
    """The fast path of one 2025-era session (request ids are the session's own)."""

    def __init__(self, path: FastPath) -> None:
        self.path = path
        self.handshake = False  # the session's `initialize` was answered with a result
        self.can_elicit = False  # its `initialize` declared the `elicitation` capability
        self.answered = 0
        self._inflight: dict[Any, anyio.CancelScope] = {}

    def initialized(self, answered: bool, params: Any) -> None:
        """The session's `initialize` (with `params`) was answered as plain JSON: with a result
        (`answered`) or an error."""
        self.handshake = answered
        self.can_elicit = declares_elicitation(params)

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
