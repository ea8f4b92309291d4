"""How large a request's head (request line and headers) may grow before the server stops reading.

uvicorn's httptools protocol (what `uvicorn[standard]` runs) puts no bound on a request's head:
the parser joins a header's pieces as they arrive, so a 64 MB header block without a token was
read to the end (quadratically: 5.6 s of one core, other clients stalled, +120 MB) before the
edge could refuse it. `head_limited(impl, max_bytes)` gives uvicorn a protocol class that counts
the bytes of a head (its URL and header fields as they are parsed, and the bytes received while
a field is still incomplete) and, past `max_bytes`, answers **431 Request Header Fields
Too Large** (a JSON-RPC error body, id null, as the request front answers) and closes the
connection: the head is never held beyond `max_bytes` plus two reads. Only the reads that come
while a head is incomplete count whole: the read a head begins in may also carry the end of the
request before it (the rest of a body answered early, 413 or 406, which the server reads and
drops, or a pipelined request), so of that read only the head's complete fields count; counting
it whole answered a 431 to the next request of a client whose head was a few hundred bytes, and
closed its connection. h11 (used when httptools is
missing) bounds the same with its own `max_incomplete_event_size` (set in `uvicorn_options`),
answering 400. The number of header fields is checked at the edge (`service.http.edge`, 431),
whatever the implementation.

How long a request may take to arrive is bounded the same way, for either implementation: its
head and body must be in within `read_seconds` (`http.request_read_seconds`, 60 s) of its first
byte (of the connection's opening, for its first request), else the server answers **408 Request
Timeout** (the same JSON-RPC error body; a response already under way is not interrupted by one:
the connection just closes) and closes the connection. While an earlier request on the
connection is still being answered (an SSE stream, a long call; uvicorn reads no pipelined
request meanwhile), the deadline waits for that answer to end. uvicorn times out only a
connection idle between requests: a head or a body sent a byte at a time, or never finished, held
its connection forever, and 20,000 of them (two client processes on loopback) used every file
descriptor the server may open, so it could serve no one. A request whose message is whole (an
SSE stream then, a long call) is not bounded by it.

How many connections may be open at once is bounded too (`connection_cap`: `http.max_connections`,
1000, and at most half the process's file-descriptor limit). A connection opened past it makes
room by closing the connection idle longest (nothing of a request read since it opened or its
last answer ended), else the one whose head has been arriving longest (503); one with a request
in flight is never closed for it, so when every one is, the new connection is answered **503
Service Unavailable** (the same JSON-RPC error body, `Retry-After: 1`) and closed at once, before
it is read (`_Over`). Within the 60 s deadline, a client opening idle sockets without end used up
the server's file descriptors (and their buffers), so neither new clients nor the index could
open a file (P1 s81); with the cap alone, those sockets kept every real client at 503 until their
deadline. uvicorn's own `limit_concurrency` does not do this: it keeps every connection open and
answers each request 503 (plain text) while the count is over its limit. An answer the client
stops reading is bounded too (`_Unread`, `http.unread_seconds`, 30 s): while uvicorn waits to write
more of it, no byte of it taken for that long aborts the connection (stdio's rule, 3a62f635).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
import time
from collections.abc import Callable
from typing import Any

from service.protocol.framing import INVALID_REQUEST, Refused

REASON = "Request Header Fields Too Large"


class HeadTooLarge(Exception):
    """Raised inside the parser's callback: the head grew past the limit."""


def too_large(max_bytes: int) -> Refused:
    return Refused(INVALID_REQUEST, f"the request line and headers are over {max_bytes} bytes", 431)


def _closing(refused: Refused, reason: str, extra: str = "") -> bytes:
    """A complete HTTP/1.1 response of `refused` (its JSON-RPC error body) that closes the
    connection (`extra`: more header lines, each ending in CRLF)."""
    body = refused.body()
    head = (
        f"HTTP/1.1 {refused.status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        f"connection: close\r\n{extra}\r\n"
    )
    return head.encode("ascii") + body


def response_431(refused: Refused) -> bytes:
    """A complete HTTP/1.1 431 response that closes the connection."""
    return _closing(refused, REASON)


def response_408(read_seconds: float) -> bytes:
    """A complete HTTP/1.1 408 response that closes the connection."""
    refused = Refused(INVALID_REQUEST, f"the request did not arrive whole within {read_seconds:g} seconds", 408)
    return _closing(refused, "Request Timeout")


def response_503(cap: int) -> bytes:
    """A complete HTTP/1.1 503 response, sent to a connection opened past `cap`, that closes it."""
    refused = Refused(INVALID_REQUEST, f"the server holds {cap} connections, its limit: try again shortly", 503)
    return _closing(refused, "Service Unavailable", "retry-after: 1\r\n")


def connection_cap(configured: int) -> int:
    """The connections the server keeps open at once: `configured`, at most half the file
    descriptors the process may open (the rest: the index, the vault's files, the watchers)."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return configured
    return configured if soft == resource.RLIM_INFINITY else max(1, min(configured, soft // 2))


class _Over:
    """The connections open, against the cap. Past it, room is made by closing the connection idle
    longest (opened or answered, nothing of a next request read since: closed silently, as a
    keep-alive timeout does), else the one whose request head has been arriving longest (answered
    503); a connection with a request in flight (its head read: a call, an SSE stream) is never
    closed for it. When every connection is in flight, the new one is answered 503 and closed.
    Each logged once a minute at most (a flood is thousands)."""

    def __init__(self, cap: int) -> None:
        self.cap, self.count, self.evicted = cap, 0, 0
        self._idle: dict[Any, None] = {}  # the idle connections, idle longest first
        self._heads: dict[Any, None] = {}  # the connections whose head is arriving, begun first
        self._logged, self._evict_logged = float("-inf"), float("-inf")

    def mark(self, protocol: Any, state: str) -> None:
        """`protocol`'s connection is "idle", reading a "head", or "busy" (or gone); an idle
        connection marked idle again keeps its place, as a head still arriving does."""
        if state == "idle":
            self._heads.pop(protocol, None)
            self._idle.setdefault(protocol, None)
        elif state == "head":
            self._idle.pop(protocol, None)
            self._heads.setdefault(protocol, None)
        else:
            self._idle.pop(protocol, None)
            self._heads.pop(protocol, None)

    def refused(self, protocol: Any) -> bool:
        """Whether `protocol`'s connection (just made, counted) is past the cap and no other could
        make room for it: then answered."""
        if len(protocol.connections) <= self.cap:
            return False
        victim = next(iter(self._idle or self._heads), None)
        if victim is not None:
            self._make_room(victim, protocol.logger)
            return False
        self.count += 1
        if time.monotonic() - self._logged >= 60:
            self._logged = time.monotonic()
            protocol.logger.warning("%d connections open, the limit: 503 (%d refused so far)", self.cap, self.count)
        protocol.connections.discard(protocol)  # counted out now, as a connection closed for room
        protocol.transport.write(response_503(self.cap))
        protocol.transport.close()
        return True

    def _make_room(self, victim: Any, logger: logging.Logger) -> None:
        heading = victim in self._heads
        self.mark(victim, "gone")
        victim.connections.discard(victim)  # counted out now: its `connection_lost` comes later
        if heading:
            victim.transport.write(response_503(self.cap))
        victim.transport.close()
        self.evicted += 1
        if time.monotonic() - self._evict_logged >= 60:
            self._evict_logged = time.monotonic()
            logger.warning(
                "%d connections open, the limit: closed the one idle longest (%d so far)", self.cap, self.evicted
            )


def response_400() -> bytes:
    """What a request the HTTP parser cannot read (request line, header syntax, chunk framing) is
    answered, for either implementation: uvicorn's own answer was a plain-text 400 ("Invalid HTTP
    request received."), the only answer of the server without a JSON-RPC error body."""
    refused = Refused(INVALID_REQUEST, "the HTTP request is malformed (request line, headers or body framing)")
    return _closing(refused, "Bad Request")


class _Deadline:
    """A connection's arrival deadline: `expired` is called `seconds` after `arm` unless `disarm`
    came first; arming an armed deadline keeps the time it was armed at."""

    __slots__ = ("_expired", "_handle", "_loop", "seconds")

    def __init__(self, loop: asyncio.AbstractEventLoop, seconds: float, expired: Callable[[], None]) -> None:
        self._loop, self.seconds, self._expired = loop, seconds, expired
        self._handle: asyncio.TimerHandle | None = None

    @property
    def armed(self) -> bool:
        return self._handle is not None

    def arm(self) -> None:
        if self._handle is None:
            self._handle = self._loop.call_later(self.seconds, self._fire)

    def disarm(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _fire(self) -> None:
        self._handle = None
        self._expired()

    def close(self, transport: asyncio.Transport, logger: logging.Logger, answered: bool) -> None:
        """Close a connection whose request did not arrive in time: 408 first, unless its
        response has begun (then the connection just closes)."""
        logger.warning("request not whole within %g s: 408", self.seconds)
        if not answered:
            transport.write(response_408(self.seconds))
        transport.close()


class _Unread:
    """An answer waiting on its client (`pause_writing`: the answer's `send` waits) is checked every
    `seconds`: no byte taken since, the connection is reset. Before, a client that stopped reading an
    SSE stream or a long answer held it, the answer's bytes and (GET) its session for good."""

    def __init__(self, protocol: Any, seconds: float) -> None:
        self._protocol, self._held = protocol, 0
        self._deadline = _Deadline(protocol.loop, seconds, self._check)

    def paused(self) -> None:
        self._held = self._protocol.transport.get_write_buffer_size()
        self._deadline.arm()

    def resumed(self) -> None:
        self._deadline.disarm()

    def _check(self) -> None:
        if (transport := self._protocol.transport).is_closing():
            return
        held = transport.get_write_buffer_size()
        if held < self._held:  # the client took some: still there
            self._held = held
            self._deadline.arm()
            return
        self._protocol.logger.warning("no byte of an answer read for %g s: closed", self._deadline.seconds)
        with contextlib.suppress(AttributeError, OSError):  # SO_LINGER 0 s: a reset, the kernel keeps nothing
            transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()


def head_limited(
    impl: str, max_bytes: int, read_seconds: float, max_connections: int | None = None, unread_seconds: float = 30.0
) -> type[asyncio.Protocol]:
    """The uvicorn `http` option for `impl` ("httptools" or "h11"): heads bounded to `max_bytes`
    (h11's bound is an option, see `uvicorn_options`), requests to arrive within `read_seconds`,
    at most `max_connections` connections open (None: no bound) and an answer the client stops
    reading closed after `unread_seconds` (`_Unread`)."""
    over = _Over(max_connections if max_connections is not None else 2**62)
    if impl == "h11":
        return _h11_deadlined(read_seconds, over, unread_seconds)
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HeadLimitedHttpTools(HttpToolsProtocol):
        """uvicorn's httptools protocol, refusing a head over `max_bytes` while it arrives."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._in_head = False  # a request has begun and its headers are not complete yet
            self._head_bytes = 0  # the URL and the header fields parsed so far
            self._read = 0  # bytes received while the head was incomplete, after the read it began in
            self._begun = False  # a request began in the bytes being parsed now
            self._over = False
            self._deadline = _Deadline(
                self.loop, read_seconds, self._too_slow
            )  # the message being read is whole by then
            self._headed = False  # the message being read has its head: `self.cycle` is its own
            self._unread = _Unread(self, unread_seconds)

        def pause_writing(self) -> None:
            super().pause_writing()
            self._unread.paused()

        def resume_writing(self) -> None:
            self._unread.resumed()
            super().resume_writing()

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            if not over.refused(self):
                self._deadline.arm()
                over.mark(self, "idle")

        def connection_lost(self, exc: Exception | None) -> None:
            self._deadline.disarm()
            self._unread.resumed()
            over.mark(self, "gone")
            super().connection_lost(exc)

        def _too_slow(self) -> None:
            if self.transport.is_closing():
                return
            if self.pipeline or (not self._headed and self.cycle is not None and not self.cycle.response_complete):
                # An earlier request on this connection is still being answered (an SSE stream, a
                # long call): the connection is held by it anyway, and uvicorn itself stops reading
                # a pipelined request until then. Neither a 408 written into that answer nor a
                # close cutting it: the deadline runs again once it is whole.
                self._deadline.arm()
                return
            answered = self._headed and self.cycle is not None and self.cycle.response_started
            self._deadline.close(self.transport, self.logger, answered)

        def on_message_complete(self) -> None:
            self._deadline.disarm()
            super().on_message_complete()

        def on_message_begin(self) -> None:
            # (a request pipelined behind one still answered: the connection is busy with that)
            over.mark(self, "head" if self.cycle is None or self.cycle.response_complete else "busy")
            super().on_message_begin()
            self._in_head, self._head_bytes, self._read, self._begun = True, 0, 0, True
            self._headed = False
            self._deadline.arm()

        def on_url(self, url: bytes) -> None:
            self._count(len(url))
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._count(len(name) + len(value) + 4)
            super().on_header(name, value)

        def _count(self, size: int) -> None:
            self._head_bytes += size
            if self._head_bytes > max_bytes:
                self._over = True
                raise HeadTooLarge  # the parser stops; uvicorn reports it (`send_400_response`)

        def on_headers_complete(self) -> None:
            self._in_head = False
            over.mark(self, "busy")
            super().on_headers_complete()
            self._headed = True

        def on_response_complete(self) -> None:
            pipelined = bool(self.pipeline)  # then the next request's answer begins now
            super().on_response_complete()
            if self.transport.is_closing() or pipelined:
                over.mark(self, "gone" if self.transport.is_closing() else "busy")
            else:
                over.mark(self, "head" if self._in_head else "idle")

        def data_received(self, data: bytes) -> None:
            self._begun = False
            super().data_received(data)
            if not self._in_head or self._begun or self.transport.is_closing():
                return  # (a head begun in `data`: what came before it is the previous request's)
            self._read += len(data)  # the head is still incomplete: a field is still arriving
            if self._read > max_bytes:
                self._refuse()

        def send_400_response(self, msg: str) -> None:
            if self._over:
                self._refuse()
            else:  # the parser's error (uvicorn has logged it): the JSON body every refusal has
                self.transport.write(response_400())
                self.transport.close()

        def _refuse(self) -> None:
            self._in_head = False
            self.logger.warning("request head over %d bytes: 431", max_bytes)
            self.transport.write(response_431(too_large(max_bytes)))
            self.transport.close()

    return HeadLimitedHttpTools


def _h11_deadlined(read_seconds: float, over: _Over, unread_seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with the same arrival deadline as the httptools one. h11 reports a
    request only once its head is whole, so the deadline follows h11's state of the client's side:
    armed when the connection opens and when bytes of a message arrive that do not complete it
    (the state is IDLE with bytes held, or SEND_BODY), cleared once the message is whole (DONE; a
    pipelined request is held PAUSED in DONE until the answer before it ends, then read)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class DeadlinedH11(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._deadline = _Deadline(self.loop, read_seconds, self._too_slow)
            self._unread = _Unread(self, unread_seconds)

        def pause_writing(self) -> None:
            super().pause_writing()
            self._unread.paused()

        def resume_writing(self) -> None:
            self._unread.resumed()
            super().resume_writing()

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            if not over.refused(self):
                self._deadline.arm()
                over.mark(self, "idle")

        def connection_lost(self, exc: Exception | None) -> None:
            self._deadline.disarm()
            self._unread.resumed()
            over.mark(self, "gone")
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()  # reads a pipelined request held until now
            self._follow()

        def _follow(self) -> None:
            state = self.conn.their_state
            if self.transport.is_closing():
                over.mark(self, "gone")
            elif state is h11.IDLE and self.conn.our_state is h11.IDLE:  # between requests
                over.mark(self, "head" if self.conn.trailing_data[0] else "idle")
            else:
                over.mark(self, "busy")
            if self.transport.is_closing() or state not in (h11.IDLE, h11.SEND_BODY):
                self._deadline.disarm()  # whole (DONE), or the connection ends
            elif state is h11.SEND_BODY or self.conn.trailing_data[0]:
                self._deadline.arm()

        def send_400_response(self, msg: str) -> None:
            """h11 could not read the request (uvicorn has logged it): the JSON body every refusal has."""
            self.transport.write(response_400())
            self.transport.close()

        def _too_slow(self) -> None:
            if self.transport.is_closing() or self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
                return
            reading_body = self.conn.their_state is h11.SEND_BODY and self.cycle is not None
            self._deadline.close(self.transport, self.logger, reading_body and self.cycle.response_started)

    return DeadlinedH11


def uvicorn_options(
    impl: str, max_bytes: int, read_seconds: float, max_connections: int | None = None, unread_seconds: float = 30.0
) -> dict[str, Any]:
    """The `uvicorn.Config` options that bound a request's head, its arrival time, the
    connections open for `impl` (`max_connections`: `connection_cap` of the setting) and how long
    an answer may wait on a client that reads none of it."""
    return {
        "http": head_limited(impl, max_bytes, read_seconds, max_connections, unread_seconds),
        "h11_max_incomplete_event_size": max_bytes,
    }
