"""Stopping with requests in flight: each finishes within the graceful period or is answered.

uvicorn's graceful stop waits `timeout_graceful_shutdown` seconds for the requests in flight, then
cancels them: a call still running (a bridge call waiting on a hung Obsidian, any slow tool) got
a cut stream ("SSE stream ended without a response", or a dropped connection) and the log an
"Exception in ASGI application" traceback; so did the stream of server messages a 2025-era client
holds open (its GET), which made every stop with such a client connected wait the whole period.

`StopFront`, an ASGI middleware on the MCP path (behind the request front, which names each
request in the scope: `REQUEST`), keeps every request there in `Stops`. When uvicorn begins to
stop, `service.serve` calls `Stops.stop(within)`:
- the GET streams end at once, cleanly ("For HTTP transports, shutdown is indicated by closing
  the associated HTTP connection(s)", the MCP lifecycle);
- requests in flight have `within` seconds (less than the graceful period) to finish; a journaled
  change in flight stops at its next file and rolls back (`service.vault.commit`) and its call
  answers `server_stopping` itself;
- those still running then are stopped and answered here with a JSON-RPC error naming the request
  (`-32603`, `data.code` `server_stopping`): as JSON when no response started, else as the last
  event of its stream. `data.retryable` is true unless the call may have changed something: a
  `mutating` tool's call (a single write may have completed, a call acting in Obsidian may have
  run there; an all-or-nothing change is rolled back) is answered retryable false, with a hint
  to look before calling again.
A request whose body is still arriving (a slow upload) is not in flight here yet (the request
front reads the body): it has the same `within` seconds to arrive whole (then it is in flight
here), after which `end_arriving` answers it 503 with the same error (id null) and closes its
connection, where uvicorn cancelled it at the end of the period (an HTTP 500 and an "Exception
in ASGI application" traceback). Nothing is half-written by the stop: file writes are
atomic (a temporary file renamed) and all-or-nothing changes roll back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.protocol.stopping import stopped_answer

__all__ = ["REQUEST", "StopFront", "Stops", "arriving", "end_arriving"]

REQUEST = "vaultgate.request"  # scope key (the request front): (id, method, tool name or None)


class _Live:
    """One request on the MCP path: its cancel scope; a GET is the stream of server messages."""

    __slots__ = ("cancel", "stream")

    def __init__(self, stream: bool) -> None:
        self.cancel = anyio.CancelScope()
        self.stream = stream


class Stops:
    """The requests in flight on the MCP path, and the server's stop (module docstring)."""

    def __init__(self, mutating: Callable[[str], bool]) -> None:
        """`mutating(tool)`: the tool may change the vault or act in Obsidian."""
        self.mutating = mutating
        self.stopping = False
        self.live: set[_Live] = set()
        self._left = asyncio.Event()  # set as each request ends

    def add(self, live: _Live) -> None:
        self.live.add(live)

    def done(self, live: _Live) -> None:
        self.live.discard(live)
        self._left.set()

    async def stop(self, within: float) -> None:
        """End the GET streams now; after `within` seconds stop the requests still running."""
        self.stopping = True
        for live in list(self.live):
            if live.stream:
                live.cancel.cancel()
        with anyio.move_on_after(within):
            while any(not live.stream for live in self.live):
                self._left.clear()
                await self._left.wait()
        for live in list(self.live):
            live.cancel.cancel()

    def answer(self, request: tuple[Any, str, str | None] | None) -> bytes:
        """The JSON-RPC error for a request the stop ended (`REQUEST` of its scope)."""
        rid, method, tool = request if request is not None else (None, "", None)
        return stopped_answer(rid, method, tool, tool is not None and self.mutating(tool))


class StopFront:
    def __init__(self, app: ASGIApp, *, path: str, stops: Stops) -> None:
        self.app = app
        self.path = path.rstrip("/") or "/"
        self.stops = stops

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or (scope["path"].rstrip("/") or "/") != self.path:
            await self.app(scope, receive, send)
            return
        started: list[bool] = []  # [True] when the response started as an SSE stream, [False] as anything else
        ended: list[bool] = []

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                kind = dict(message.get("headers") or []).get(b"content-type", b"")
                started.append(bytes(kind).startswith(b"text/event-stream"))
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                ended.append(True)
            await send(message)

        live = _Live(stream=scope["method"] == "GET")
        self.stops.add(live)
        try:
            with live.cancel:
                await self.app(scope, receive, sending)
        finally:
            self.stops.done(live)
        if live.cancel.cancelled_caught and not ended:
            await self._ended(scope, send, started)

    async def _ended(self, scope: Scope, send: Send, started: list[bool]) -> None:
        """Answer a request the stop ended (module docstring)."""
        request = scope.get(REQUEST)
        if not started:
            if scope["method"] != "POST" or request is None:
                await send({"type": "http.response.start", "status": 503, "headers": []})
                await send({"type": "http.response.body", "body": b""})
                return
            body = self.stops.answer(request)
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        last = b""
        if started[0] and request is not None:  # a stream: its last event answers the request
            last = b"event: message\r\ndata: " + self.stops.answer(request) + b"\r\n\r\n"
        await send({"type": "http.response.body", "body": last, "more_body": False})


def arriving(connections: Iterable[Any]) -> list[Any]:
    """uvicorn's protocols (`service.http.connections.Held`) whose request has its head but not
    its whole body yet, and no answer begun: not in flight here yet (module docstring)."""
    out = []
    for connection in list(connections):
        cycle, transport = getattr(connection, "cycle", None), getattr(connection, "transport", None)
        owed = getattr(connection, "_answer_owed", None)
        if cycle is None or transport is None or owed is None or transport.is_closing():
            continue
        if cycle.response_started or cycle.response_complete or cycle.scope.get("method") == "GET" or owed():
            continue  # answered, being answered, or read whole (in flight: `Stops`)
        out.append(connection)
    return out


def end_arriving(connections: Iterable[Any]) -> None:
    """Answer each request still `arriving` 503 `server_stopping` and close its connection."""
    body = stopped_answer(None, "", None, False, ran=False)
    head = f"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
    answer = (head + "connection: close\r\n\r\n").encode("ascii") + body
    for connection in arriving(connections):
        connection._deadline.disarm()
        connection.transport.write(answer)
        connection.transport.close()  # (lingering: the client's close may come later)
        connection.cycle.disconnected = True  # the request's `receive` says so now, as a close does
        connection.cycle.message_event.set()
