"""Streamable HTTP answered the cheap way when it can be: a plain JSON body for a request whose
own response is the first message ready for it, an SSE stream only when the request needs one.

The SDK's handshake-era transport (protocol versions up to 2025-11-25) answers every request
POST with an SSE stream: per call a task group, memory streams, a keep-alive ping task and a
disconnect listener: about half the server CPU a plain `read_note` costs. Both protocol revisions
let the server choose per POST ("the server MUST either return `Content-Type:
text/event-stream` ... or `Content-Type: application/json`"; "the client MUST support both"), so
`LazyStreamTransport` dispatches the request and waits for the first message the session routes
to it:

- its response, within `grace` seconds: `application/json`, one body;
- anything else first (a progress or log notification, a server-to-client request such as an
  elicitation) or nothing within `grace`: `text/event-stream` from then on, carrying that
  message, whatever follows and the response, with the SDK's keep-alive pings while it waits.

A silent call that runs past `grace` thus still gets its stream early (a proxy's idle timeout
sees pings), and progress, client logging and elicitation work as before. With an event store
(resumable streams: the priming event must be stored before dispatch), in JSON-only mode, or
with `grace` 0, the SDK's own path answers requests; a notification or response POST (marked by
the request front, `service.http.front.NO_ANSWER`) is answered 202 here in every mode, and one
whose session ended meanwhile (a DELETE racing it) is dropped, not a server error. Everything
else stays the SDK's: session ids and their owners, the idle timeout, Host/Origin checks, the
2026-07-28 entry (which already defers its stream the same way; its plain calls are answered
past it by `service.http.modern_calls`) and stateless mode (a transport per request, built by the SDK).
`LazySessionManager` gives each new session this transport; `mcp_app` is the ASGI endpoint.

A request whose id a request still in flight on the session carries ("The request ID MUST NOT have
been previously used by the requestor within the same session", the MCP base protocol) is refused
on every path with `400` and a JSON-RPC `-32600` error naming the id: the SDK routes responses by
id, so the second would take the first one's place and leave the first POST waiting forever.

When the client ends the session (DELETE) with requests in flight, every path stops them and
answers each the same way: `-32603` "Session terminated before the request completed" with the
request's id, as JSON (HTTP 200: the SDK's JSON mode says 500, but the server did not fail) or as
the last event of its stream.
With `[protocol] fast_calls` on, a plain `tools/call` on a session whose `initialize` was
answered as JSON is run past the SDK's session, after every check above, and answered the same
way: JSON when done within `grace`, else a stream opened at `grace` (`service.http.fast_calls`);
a plain `tools/call` of a 2026-07-28 client is answered past the SDK's modern entry, after every
check that entry makes (`service.http.modern_calls`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from http import HTTPStatus
from typing import Any

import anyio
import pydantic_core
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http import (
    CONTENT_TYPE_SSE,
    GET_STREAM_KEY,
    MCP_SESSION_ID_HEADER,
    REQUEST_CANCELLED,
    REQUEST_STREAM_BUFFER_SIZE,
    EventMessage,
    StreamableHTTPServerTransport,
)
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.message import SessionMessage
from mcp_types import (
    DEFAULT_NEGOTIATED_VERSION,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError
from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from service.http.fast_calls import SessionFastCalls, ShippedLists
from service.http.front import NO_ANSWER
from service.http.modern_calls import ModernCalls
from service.protocol.fast_path import FastPath
from service.protocol.framing import reused_id

logger = logging.getLogger("vaultgate.http")

Streams = tuple[MemoryObjectSendStream[EventMessage], MemoryObjectReceiveStream[EventMessage]]


def _is_response(message: JSONRPCMessage) -> bool:
    return isinstance(message, JSONRPCResponse | JSONRPCError)


def _release(message: JSONRPCMessage) -> None:
    """Let a response's body go once it is on the wire. The SDK's message router keeps the last
    message it routed (its loop variable) until the session's next one: with plain tool calls
    answered past the SDK, that is often never, and an idle session kept its `tools/list` answer
    (~300 KB of dicts) for life. Only without an event store (nothing replays the message)."""
    if isinstance(message, JSONRPCResponse):
        message.result = {}


class LazyStreamTransport(StreamableHTTPServerTransport):
    """The SDK's session transport, answering request POSTs with JSON unless they need a stream."""

    def __init__(self, *args: Any, grace: float, fast: SessionFastCalls | None = None, **kwargs: Any) -> None:
        """`grace`: seconds a request's response may take and still go out as plain JSON; `fast`:
        the session's fast path for plain tool calls (`service.http.fast_calls`), if on."""
        super().__init__(*args, **kwargs)
        self.grace = grace
        self.fast = fast
        self._ids_in_flight: set[Any] = set()  # request ids (coerced: "7" is 7) answered by `_answer` now

    def _in_use(self, message: JSONRPCRequest) -> bool:
        """A request in flight on this session carries the id of `message`."""
        return coerce_request_id(message.id) in self._ids_in_flight or str(message.id) in self._request_streams

    def _ended(self, request_id: Any) -> JSONRPCError:
        """The answer to a request in flight when its session ended."""
        error = ErrorData(code=INTERNAL_ERROR, message="Session terminated before the request completed")
        return JSONRPCError(jsonrpc="2.0", id=request_id, error=error)

    async def terminate(self) -> None:
        """The SDK's termination, then the fast calls in flight stop too (the SDK's session cancels its own)."""
        await super().terminate()
        if self.fast is not None:
            self.fast.stop_all()

    async def _refuse_reused_id(self, message: JSONRPCRequest, scope: Scope, receive: Receive, send: Send) -> None:
        reused = reused_id(message.id).error()["error"]  # the stdio front's answer too (`service.protocol.stdio_ids`)
        answer = JSONRPCError(jsonrpc="2.0", id=message.id, error=ErrorData.model_validate(reused))
        await self._create_json_response(answer, HTTPStatus.BAD_REQUEST)(scope, receive, send)

    async def _reuses_id(self, request: Request, scope: Scope, receive: Receive, send: Send) -> bool:
        """On the SDK's own path: a request POST whose id is in flight is refused here (True); the
        body is read only while some request is in flight (the SDK reads it again from the cache)."""
        if not any(key != GET_STREAM_KEY for key in self._request_streams):
            return False
        try:
            message = jsonrpc_message_adapter.validate_json(await request.body(), by_name=False)
        except (ValueError, ValidationError):
            return False  # the SDK's answer
        if not isinstance(message, JSONRPCRequest) or not self._in_use(message):
            return False
        await self._refuse_reused_id(message, scope, receive, send)
        return True

    async def _handle_post_request(self, scope: Scope, request: Request, receive: Receive, send: Send) -> None:
        own = not (self.grace <= 0 or self._event_store is not None or self.is_json_response_enabled)
        if not own and not scope.get(NO_ANSWER):  # the SDK's path (a notification: below, as the SDK's)
            if not await self._reuses_id(request, scope, receive, send):
                await super()._handle_post_request(scope, request, receive, send)
            return
        writer = self._read_stream_writer
        if writer is None:  # pragma: no cover - connect() runs before any request is routed here
            raise RuntimeError("the transport is not connected")
        try:
            message = await self._read_message(scope, request, receive, send)
            if message is None:
                return
            if not isinstance(message, JSONRPCRequest):
                # a notification or the client's answer to our request: 202, then hand it on
                await self._create_json_response(None, HTTPStatus.ACCEPTED)(scope, receive, send)
                if self.fast is None or not self.fast.cancel(message):  # a fast call's cancel stays here
                    # the session may have ended meanwhile (a DELETE): then no one takes it, and it was answered
                    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                        await writer.send(SessionMessage(message, metadata=self._message_metadata(request)))
                return
        except Exception as err:  # the SDK's answer to a failure before dispatch
            logger.exception("error handling a POST request")
            failure = self._create_error_response(
                "Error handling POST request", HTTPStatus.INTERNAL_SERVER_ERROR, INTERNAL_ERROR
            )
            await failure(scope, receive, send)
            await writer.send(Exception(err))
            return
        if not own:  # pragma: no cover - the front marks only messages that are no request
            await super()._handle_post_request(scope, request, receive, send)
            return
        await self._answer(message, request, scope, receive, send)

    async def _read_message(
        self, scope: Scope, request: Request, receive: Receive, send: Send
    ) -> JSONRPCMessage | None:
        """The POSTed message after the SDK's checks (Accept, Content-Type, JSON, JSON-RPC shape,
        session id), or None when one of them has already answered."""
        if not await self._validate_accept_header(request, scope, send):
            return None
        if not self._check_content_type(request):
            refused = self._create_error_response(
                "Unsupported Media Type: Content-Type must be application/json", HTTPStatus.UNSUPPORTED_MEDIA_TYPE
            )
            await refused(scope, receive, send)
            return None
        body = await request.body()
        try:
            raw = pydantic_core.from_json(body)
        except ValueError as exc:
            await self._create_error_response(f"Parse error: {exc}", HTTPStatus.BAD_REQUEST, PARSE_ERROR)(
                scope, receive, send
            )
            return None
        try:
            message: JSONRPCMessage = jsonrpc_message_adapter.validate_python(raw, by_name=False)
        except ValidationError as exc:
            await self._create_error_response(f"Validation error: {exc}", HTTPStatus.BAD_REQUEST, INVALID_PARAMS)(
                scope, receive, send
            )
            return None
        if isinstance(message, JSONRPCRequest) and message.method == "initialize":
            claimed = self._get_session_id(request)
            if self.mcp_session_id and claimed and claimed != self.mcp_session_id:
                await self._create_error_response("Not Found: Invalid or expired session ID", HTTPStatus.NOT_FOUND)(
                    scope, receive, send
                )
                return None
        elif not await self._validate_request_headers(request, send):
            return None
        return message

    async def _answer(
        self, message: JSONRPCRequest, request: Request, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """The request answered on one of the paths below, unless its id is in flight already."""
        if self._in_use(message):
            await self._refuse_reused_id(message, scope, receive, send)
            return
        key = coerce_request_id(message.id)
        self._ids_in_flight.add(key)
        try:
            await self._dispatch(message, request, scope, receive, send)
        finally:
            self._ids_in_flight.discard(key)

    async def _dispatch(
        self, message: JSONRPCRequest, request: Request, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """Dispatch the request; answer with JSON if its response comes first and in time, else
        open the SSE stream with whatever came first."""
        writer = self._read_stream_writer
        assert writer is not None
        if message.method == "initialize" and message.params:
            version = str(message.params.get("protocolVersion", DEFAULT_NEGOTIATED_VERSION))
        else:
            version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER, DEFAULT_NEGOTIATED_VERSION)
        listed = self.fast.listed(message) if self.fast is not None else None
        if listed is not None:  # the SDK's own answer, shipped with the package
            await self._create_json_response(JSONRPCResponse(jsonrpc="2.0", id=message.id, result=listed))(
                scope, receive, send
            )
            return
        call = self.fast.plain_call(message) if self.fast is not None else None
        if call is not None and self.fast is not None:  # past the session: the same answer
            await self._answer_fast(self.fast.answer(call, message, request, version), scope, receive, send)
            return
        request_id = str(message.id)
        streams: Streams = anyio.create_memory_object_stream[EventMessage](REQUEST_STREAM_BUFFER_SIZE)
        self._request_streams[request_id] = streams
        reader = streams[1]
        try:
            first: EventMessage | None = None
            ended = False
            try:
                await writer.send(self._create_session_message(message, request, request_id, version))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                ended = True  # the session ended between the checks and the dispatch
            if not ended:
                with anyio.move_on_after(self.grace):
                    try:
                        first = await reader.receive()
                    except (anyio.EndOfStream, anyio.ClosedResourceError):
                        ended = True
            if ended:  # the session ended with the request in flight (the SDK's JSON-mode answer)
                refused = self._create_json_response(self._ended(message.id))  # an answer, not a server failure
                await refused(scope, receive, send)
            elif first is not None and _is_response(first.message):
                self._handshake(message, first.message)
                await self._create_json_response(first.message)(scope, receive, send)
                _release(first.message)
            else:  # an `initialize` answered past the grace (a loaded machine) is learnt all the same
                answered = partial(self._handshake, message)
                await self._stream(first, reader, scope, receive, send, message.id, answered)
        finally:
            if self._request_streams.get(request_id) is streams:
                del self._request_streams[request_id]
            for stream in streams:
                stream.close()

    async def _answer_fast(self, answer: Awaitable[JSONRPCMessage], scope: Scope, receive: Receive, send: Send) -> None:
        """A fast call's answer as JSON when it is ready within `grace`, else (as for any silent
        call) an SSE stream opened at `grace`, with the SDK's keep-alive pings, that carries it.
        A timer, not a task: a call that is done in time costs one `call_later`."""
        loop = asyncio.get_running_loop()
        opened: list[tuple[Streams, asyncio.Task[None]]] = []

        def open_stream() -> None:
            streams = anyio.create_memory_object_stream[EventMessage](1)
            opened.append((streams, loop.create_task(self._stream(None, streams[1], scope, receive, send, None))))

        timer = loop.call_later(self.grace, open_stream)
        try:
            message = await answer
        except BaseException:
            for (writer, reader), task in opened:
                task.cancel()
                writer.close()
                reader.close()
            raise
        finally:
            timer.cancel()
        if self._terminated and isinstance(message, JSONRPCError) and message.error.code == REQUEST_CANCELLED:
            message = self._ended(message.id)  # stopped by the end of its session: as on the SDK's path
        if not opened:
            await self._create_json_response(message)(scope, receive, send)
            return
        (writer, reader), task = opened[0]
        try:
            with writer:
                writer.send_nowait(EventMessage(message))  # the buffer holds the one message
            await task
        finally:
            reader.close()

    def _handshake(self, message: JSONRPCRequest, response: JSONRPCMessage) -> None:
        """`response` answers `message`: when that is the session's `initialize`, the fast path
        learns whether it succeeded, its version and the client's capabilities, before the client
        reads it. Answered on a stream (past the grace) as well as with JSON: else a session whose
        `initialize` took longer than the grace sent every call through the SDK."""
        if self.fast is not None and message.method == "initialize":
            answered = isinstance(response, JSONRPCResponse)
            self.fast.initialized(answered, message.params, getattr(response, "result", None))

    async def _stream(
        self,
        first: EventMessage | None,
        reader: MemoryObjectReceiveStream[EventMessage],
        scope: Scope,
        receive: Receive,
        send: Send,
        request_id: Any,
        answered: Callable[[JSONRPCMessage], None] | None = None,
    ) -> None:
        """The rest of the request's messages as an SSE stream, ending with its response (`request_id`:
        the request's, answered "Session terminated" when the session ends first; None: the caller
        sends every message; `answered` is told the response before it is sent)."""

        async def events() -> AsyncIterator[dict[str, Any]]:
            pending = first
            try:
                while True:
                    if pending is None:
                        pending = await reader.receive()
                    if answered is not None and _is_response(pending.message):
                        answered(pending.message)
                    yield self._create_event_data(pending)
                    if _is_response(pending.message):
                        _release(pending.message)
                        return
                    pending = None
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                if self._terminated and request_id is not None:  # else the client went away
                    yield self._create_event_data(EventMessage(self._ended(request_id)))

        headers = {
            "Cache-Control": "no-cache, no-transform",
            "Connection": "keep-alive",
            "Content-Type": CONTENT_TYPE_SSE,
        }
        if self.mcp_session_id:
            headers[MCP_SESSION_ID_HEADER] = self.mcp_session_id
        await EventSourceResponse(content=events(), headers=headers)(scope, receive, send)


class LazySessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager whose sessions answer with `LazyStreamTransport`."""

    def __init__(
        self,
        app: Server[Any],
        *,
        grace: float,
        fast: FastPath | None = None,
        lists: ShippedLists | None = None,
        **kwargs: Any,
    ) -> None:
        """`fast`: the rule of the fast path for plain tool calls (None: every call through the SDK);
        `lists`: with it, a session's first `tools/list` from the shipped answers (`service.http.fast_calls`)."""
        super().__init__(app, **kwargs)
        self.grace = grace
        self.fast = fast
        self.lists = lists
        # 2026-07-28 plain calls past the SDK's modern entry
        self.modern = None if fast is None else ModernCalls(fast, app, self.security_settings, json=self.json_response)

    async def _handle_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A POST the SDK gives its 2026-07-28 entry (an `MCP-Protocol-Version` header naming no
        handshake-era version) is offered to `ModernCalls` first (`service.http.modern_calls`)."""
        if self.modern is not None and self._task_group is not None and scope["method"] == "POST":
            pv = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"mcp-protocol-version"), None)
            if pv is not None and pv not in HANDSHAKE_PROTOCOL_VERSIONS:
                handed = await self.modern.answer(scope, receive, send, self._lifespan_state)
                if handed is None:
                    return
                receive, send = handed
        await super()._handle_request(scope, receive, send)

    def _admit_session(self, requestor: AuthorizationContext | None) -> StreamableHTTPServerTransport | None:
        admitted = super()._admit_session(requestor)  # the session limit and the owner's record
        if admitted is None or admitted.mcp_session_id is None:
            return admitted
        lazy = LazyStreamTransport(
            mcp_session_id=admitted.mcp_session_id,
            is_json_response_enabled=self.json_response,
            event_store=self.event_store,
            security_settings=self.security_settings,
            retry_interval=self.retry_interval,
            idle_timeout=self.session_idle_timeout,
            grace=self.grace,
            fast=SessionFastCalls(self.fast, self.lists) if self.fast is not None else None,
        )
        self._server_instances[admitted.mcp_session_id] = lazy
        return lazy


def mcp_app(manager: StreamableHTTPSessionManager) -> StreamableHTTPASGIApp:
    """The ASGI endpoint of the MCP path."""
    return StreamableHTTPASGIApp(manager)
