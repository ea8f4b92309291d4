"""Which `tools/call` may skip the MCP SDK's per-request machinery, and the answer it gets.

On the SDK's path a tool call is parsed into pydantic models, validated against the protocol
surface, given a request context with a `ServerSession`, run in a task of its own behind memory
streams, and its `CallToolResult` is dumped, validated against the surface again and dumped to
JSON: about two thirds of the server's CPU for a plain `read_note`. A call that needs nothing of
the session can run through `Dispatcher.call` (the same dispatch chain) and be answered with
the JSON the SDK would write. The transports' fast paths (`service.protocol.fast_calls` for
stdio, `service.http.fast_calls` for Streamable HTTP's 2025-era sessions,
`service.http.modern_calls` for its 2026-07-28 entry) use the rule and the encoding kept here.

The rule (`FastPath.plain_call`), besides what each transport checks of its own connection:
- `params` has only `name` (a string), `arguments` (an object, or absent) and `_meta` (an object
  whose keys are all `vaultgate/…`: no progress token, no log level, no trace context; no
  `task`, no input responses), besides the keys of the 2026-07-28 envelope (protocol version,
  client info, client capabilities) where the transport serves that era and checked it
  (`envelope`), its values included (`envelope_holds`);
- the tool is unknown (the chain answers `unknown_tool`) or is neither a task tool nor a facade
  tool (those run other tools, which may need the client's answer), and a tool that may ask for
  confirmation (or runs tools that may: `apply_finding`) only when the client declared no
  `elicitation` capability (the confirmation layer then answers `elicit_required` on either path;
  a client that can be asked is asked through the SDK's session). Writes qualify: nothing else in
  the chain needs the session (read-your-writes marks are keyed by the HTTP session id, progress
  needs a progress token);
- no client has set a log level (`logging/setLevel`: its notifications ride the SDK's session);
- the SDK server carries no middleware besides its OpenTelemetry one and the plan tasks', no
  cache hint for `tools/call`, and no global OpenTelemetry tracer provider is installed (the
  SDK's protocol span would be lost).

The answer (`result_body`): the `CallToolResult` as the SDK's surface dumps it:
`content` (the text block), `isError`, `structuredContent` when set, in that order — at
2026-07-28, `resultType: "complete"` before `structuredContent` and the server's `serverInfo`
stamp in `_meta` last (`FastPath.server_info`, known once the SDK's server is built); anything
else (extra content blocks) goes through the SDK's own models. `result_json` writes the same
answer as JSON, reusing the governor's serialization of `structuredContent`. Errors raised by the chain map as
the SDK maps them (`error_data`). This is one of the few modules that import the SDK.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic_core import to_json

from service.dispatch.context import ToolResult
from service.dispatch.entry import Dispatcher, to_call_tool_result
from service.protocol.client_log import ClientLogs

if TYPE_CHECKING:  # the SDK's server loads after a stdio start's first calls (`FastPath.allow`)
    from mcp.server.lowlevel.server import Server

log = logging.getLogger(__name__)

METHOD = "tools/call"
# `mcp_types.SERVER_INFO_META_KEY`, spelled here: reading a name of `mcp_types` loads every
# protocol model, which a stdio start's first calls do not use (`service.protocol.sdk_packages`)
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"
PARAMS = frozenset({"name", "arguments", "_meta"})
OWN_META = "vaultgate/"


@dataclass(slots=True, frozen=True)
class PlainCall:
    tool: str
    arguments: dict[str, Any] | None
    meta: dict[str, Any]


@dataclass(slots=True)
class CallRequest:
    """What the chain reads of the SDK's request context (`ServerRequestContext`) for a call
    that has no session: the HTTP request (None over stdio), `_meta` and the request id."""

    request: Any
    meta: dict[str, Any]
    request_id: Any
    session: None = None


def server_allows(server: Server[Any]) -> bool:
    """Whether `server` does nothing per `tools/call` that the fast path leaves out: no
    middleware but the SDK's OpenTelemetry one and the plan tasks', no cache hint for it."""
    from mcp.server._otel import OpenTelemetryMiddleware

    from service.protocol.tasks import PlanTasks

    for middleware in server.middleware:
        owner = getattr(middleware, "__self__", None)
        if not isinstance(middleware, OpenTelemetryMiddleware) and not isinstance(owner, PlanTasks):
            return False
    return METHOD not in server.cache_hints


def global_tracing() -> bool:
    """Whether a global OpenTelemetry tracer provider is installed (the SDK's span records then).
    None is installed before OpenTelemetry is imported (the SDK's server imports it) unless the
    environment names one, which its first `get_tracer_provider()` loads."""
    if "opentelemetry.trace" not in sys.modules and "OTEL_PYTHON_TRACER_PROVIDER" not in os.environ:
        return False
    from opentelemetry import trace

    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


class FastPath:
    """The rule for one server: `plain_call(params)` says whether a `tools/call` may skip the SDK."""

    def __init__(self, dispatcher: Dispatcher, server: Server[Any] | None, client_logs: ClientLogs) -> None:
        """`server` None: not built yet, as in a stdio start's first calls, which the app's own
        server (`VaultgateApp.server`: only middleware `server_allows` accepts) follows;
        `allow(server)` checks it once built."""
        self.dispatcher = dispatcher
        self.client_logs = client_logs
        self.enabled = server is None or server_allows(server)
        # the `serverInfo` stamp of a 2026-07-28 answer, once the SDK's server is built
        self.server_info: dict[str, Any] | None = None if server is None else server.server_info_stamp
        # the confirmation layer's rule, found once (a dispatcher without a chain: the tool's own)
        confirm = next((x for x in getattr(dispatcher, "layers", ()) if x.name == "confirm"), None)
        self._asks: Callable[[Any], bool] | None = getattr(confirm, "may_ask", None)

    def _may_ask(self, spec: Any) -> bool:
        """Whether the chain's confirmation layer may ask a human about a call of `spec` (its
        own rule, configured floors and vaults in write_mode confirm included)."""
        asks = self._asks
        return bool(asks(spec)) if asks is not None else spec.confirm != "never"

    def allow(self, server: Server[Any]) -> None:
        """The SDK server is built: calls skip it only if it does nothing per call they leave out."""
        self.enabled = server_allows(server)
        self.server_info = server.server_info_stamp

    def plain_call(
        self, params: Any, *, can_elicit: bool = False, envelope: frozenset[str] = frozenset()
    ) -> PlainCall | None:
        """The call in `params` when it needs nothing of the SDK's session, else None
        (`can_elicit`: the client declared the `elicitation` capability; `envelope`: `_meta` keys
        the transport has checked, allowed besides `vaultgate/…`)."""
        if not self.enabled or not isinstance(params, dict) or params.keys() - PARAMS:
            return None
        name, arguments, meta = params.get("name"), params.get("arguments"), params.get("_meta", {})
        if not isinstance(name, str) or not isinstance(meta, dict):
            return None
        if "arguments" in params and not isinstance(arguments, dict):
            return None
        if not all(isinstance(k, str) and (k.startswith(OWN_META) or k in envelope) for k in meta):
            return None
        spec = self.dispatcher.registry.get(name)
        if spec is not None and (spec.task_support or spec.domain == "facade" or (can_elicit and self._may_ask(spec))):
            return None
        if self.client_logs.levels_set() or global_tracing():
            return None
        return PlainCall(name, arguments, meta)

    async def run(self, call: PlainCall, request_id: Any, http_request: Any = None) -> ToolResult:
        """The call through the dispatch chain, for the caller of `http_request` (None: stdio)."""
        request = CallRequest(http_request, call.meta, request_id)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("tools/call %s answered past the SDK", to_json(request_id).decode())
        principal, transport = self.dispatcher.principal_for(request)  # type: ignore[arg-type]
        return await self.dispatcher.call(
            call.tool, call.arguments, principal=principal, transport=transport, request=request, meta=call.meta
        )


def envelope_holds(method: str, version: str, params: dict[str, Any]) -> bool:
    """Whether the params of a 2026-07-28 request pass the SDK's own check of them, which its
    runner makes before any handler (`mcp_types.methods.validate_client_request`: the envelope's
    values too — client capabilities and client info objects, their fields typed — not only its
    keys); a request that fails it is the SDK's to refuse (`-32602`, HTTP 400). The arguments
    (an object, checked by `FastPath.plain_call`; the SDK types them `dict[str, Any]`) are left out:
    their size is the client's."""
    from mcp_types import methods
    from pydantic import ValidationError

    try:
        methods.validate_client_request(method, version, {k: v for k, v in params.items() if k != "arguments"})
    except (ValidationError, KeyError):  # KeyError: a method or version the surface does not know
        return False
    return True


def result_body(result: ToolResult, version: str, server_info: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `result` of the JSON-RPC response the SDK writes for `result` at protocol `version`
    (at 2026-07-28 with `server_info`, the stamp the SDK's server puts in every answer's `_meta`)."""
    if version in MODERN_PROTOCOL_VERSIONS:
        body = _body(result, version, modern=True)
        meta = body.get("_meta")
        body["_meta"] = {**(meta if isinstance(meta, dict) else {}), SERVER_INFO_META_KEY: server_info}
        return body
    return _body(result, version)


def _body(result: ToolResult, version: str, *, modern: bool = False) -> dict[str, Any]:
    if not result.extra_content and result.input_required is None:
        body: dict[str, Any] = {"content": [{"text": result.text, "type": "text"}], "isError": result.is_error}
        if modern:
            body["resultType"] = "complete"
        if result.structured is not None:
            body["structuredContent"] = result.structured
        return body
    from mcp.shared.exceptions import MCPError
    from mcp_types import methods
    from pydantic import ValidationError

    shaped = result.input_required if result.input_required is not None else to_call_tool_result(result)
    dumped = shaped.model_dump(by_alias=True, mode="json", exclude_none=True)
    try:
        return methods.serialize_server_result(METHOD, version, dumped)
    except ValidationError:
        log.exception("handler for %r returned an invalid result", METHOD)
        raise MCPError(code=types.INTERNAL_ERROR, message="Handler returned an invalid result") from None


def result_json(result: ToolResult, version: str, server_info: dict[str, Any] | None = None) -> bytes:
    """`result_body` as the JSON the SDK writes (`to_json` of it), from the bytes the governor
    already made of `structured` (`ToolResult.structured_json`) when there are some: a plain
    answer's note is then serialized once for its size and once for its text block, not again."""
    if (
        result.extra_content
        or result.input_required is not None
        or (result.structured is not None and result.structured_json is None)
    ):
        return to_json(result_body(result, version, server_info))
    head = b'{"content":[{"text":%s,"type":"text"}],"isError":%s' % (
        to_json(result.text),
        b"true" if result.is_error else b"false",
    )
    modern = version in MODERN_PROTOCOL_VERSIONS
    if modern:
        head += b',"resultType":"complete"'
    if result.structured_json is not None:
        head = b'%s,"structuredContent":%s' % (head, result.structured_json)
    if modern:
        head = b'%s,"_meta":{"%s":%s}' % (head, SERVER_INFO_META_KEY.encode(), to_json(server_info))
    return head + b"}"


def error_data(exc: Exception, *, modern: bool = False) -> types.ErrorData:
    """What the SDK answers for an exception raised by a handler (its stdio/2025-era dispatcher;
    `modern`: its 2026-07-28 entries)."""
    from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data

    if modern:
        from mcp.server.runner import modern_error_data

        return modern_error_data(exc)

    error = handler_exception_to_error_data(exc)
    if error is None:
        log.exception("handler for %r raised", METHOD)
        error = types.ErrorData(code=0, message=str(exc))
    return error
