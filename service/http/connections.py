"""What each connection of the HTTP front is held to, whichever parser reads it (the protocol
classes of `service.http.head_limits` take it as the mixin `Held`): how many may be open at once
(`_Over`), how long its request may take to arrive (`_Deadline`, armed by the protocol class) and
how long an answer may wait on a client that reads none of it (`_Unread`).

How many connections may be open at once is bounded (`connection_cap`: `http.max_connections`,
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
A request read whole before the client half-closed is answered (`Held.eof_received`).

A connection closed while its client may still be sending (a refusal: 400, 408, 431; an answer
that ends the connection before its request was read whole) lingers, as nginx's
`lingering_close` does (RFC 9112 9.6): the answer is sent, the write side shut (FIN), and what the
client still sends is read and dropped until it closes too, for at most `LINGER_SECONDS` (2 s)
and `LINGER_BYTES` (8 MiB), then the connection closes. Closed at once instead, the kernel
answered the client's unread bytes with a reset: a client sending a 2 MB head read its 431 and
then `ECONNRESET`, not the end of the answer (`Held._linger`). A connection idle between
requests, one whose client has sent its last byte, and every one while the connection cap is
reached close at once (nothing more is coming, or the room is needed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
import time
from collections.abc import Callable
from email.utils import formatdate
from typing import Any, cast

from service.protocol.framing import INVALID_REQUEST, Refused

LINGER_SECONDS = 2.0  # the client's last bytes and its FIN come within a round trip or two
LINGER_BYTES = 8 * 1024 * 1024  # what a client may have in flight: its send and our receive buffers


def closing(refused: Refused, reason: str, extra: str = "") -> bytes:
    """A complete HTTP/1.1 response of `refused` (its JSON-RPC error body) that closes the
    connection (`extra`: more header lines, each ending in CRLF)."""
    body = refused.body()
    head = (
        f"HTTP/1.1 {refused.status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        f"connection: close\r\n{extra}\r\n"
    )
    return head.encode("ascii") + body


def response_408(read_seconds: float) -> bytes:
    """A complete HTTP/1.1 408 response that closes the connection."""
    refused = Refused(INVALID_REQUEST, f"the request did not arrive whole within {read_seconds:g} seconds", 408)
    return closing(refused, "Request Timeout")


def response_503(cap: int) -> bytes:
    """A complete HTTP/1.1 503 response, sent to a connection opened past `cap`, that closes it."""
    refused = Refused(INVALID_REQUEST, f"the server holds {cap} connections, its limit: try again shortly", 503)
    return closing(refused, "Service Unavailable", "retry-after: 1\r\n")


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

    def idle(self, protocol: Any) -> bool:
        """Whether `protocol`'s connection is idle: between requests, nothing of a next one read."""
        return protocol in self._idle

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


class _Lingering:
    """A connection's transport as uvicorn's protocol sees it: `close` lingers (`Held._linger`);
    once it does, the connection is closing to the protocol, which writes and pauses no more."""

    def __init__(self, transport: asyncio.Transport, protocol: Held) -> None:
        self._transport, self._protocol = transport, protocol

    def close(self) -> None:
        self._protocol._linger()

    def is_closing(self) -> bool:
        return self._protocol._lingering is not None or self._transport.is_closing()

    def write(self, data: bytes) -> None:
        if self._protocol._lingering is None:
            self._transport.write(data)

    def pause_reading(self) -> None:
        if self._protocol._lingering is None:
            self._transport.pause_reading()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


_DATE: list[Any] = [0, b""]  # the second of the last Date value made, and that value


def fresh_date(state: Any) -> None:
    """The Date header uvicorn adds to every answer (`state.default_headers`), as of now. uvicorn's
    main loop made it again 10 times a second, the idle server's only wake-ups; the server waits
    for its exit instead (`service.serve._Server.main_loop`), and each read of a request makes the
    header current. In place: a request being answered holds the list."""
    now = int(time.time())
    if _DATE[0] != now:
        _DATE[0], _DATE[1] = now, formatdate(now, usegmt=True).encode()
    headers = state.default_headers
    for i, (name, value) in enumerate(headers):
        if name == b"date":
            if value != _DATE[1]:
                headers[i] = (b"date", _DATE[1])
            return


class Held(asyncio.Protocol):
    """The overrides both protocol classes share, before uvicorn's own protocol in their bases: the
    connection counted against the cap (`_cap`) when it opens and its arrival deadline armed
    (`_read_seconds`, expiring in `_too_slow`), both let go when it closes; an answer it stops
    reading watched (`_unread_seconds`). The class made by `head_limited` sets the three."""

    _cap: _Over
    _read_seconds: float
    _unread_seconds: float
    _half_closed = False  # the client sent its last byte while an answer was owed (`eof_received`)
    _eof = False  # the client sent its last byte
    _lingering: asyncio.TimerHandle | None = None  # closed, the client's last bytes read and dropped
    _drained = 0  # bytes read and dropped while lingering
    _receiving = False  # in `data_received`
    connections: set[Any]
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    server_state: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline = _Deadline(self.loop, self._read_seconds, self._too_slow)
        self._unread = _Unread(self, self._unread_seconds)

    def _too_slow(self) -> None:
        raise NotImplementedError

    def _answer_owed(self) -> bool:
        """A request read whole, not a GET, is being answered (or waits for its answer)."""
        raise NotImplementedError

    @staticmethod
    def _get(scope: Any) -> bool:
        return bool(scope.get("method") == "GET")

    def eof_received(self) -> bool | None:
        """The client sent its last byte: a half-close (`shutdown(SHUT_WR)`, `nc -N`, a script that
        writes its request and then only reads) or a close, which cannot be told apart. A request
        read whole is still answered, as curl's peers and most servers do, then the connection
        closes (`_answered`): uvicorn closed at once, so a ping's answer was lost and /healthz's
        came by a race. A GET (at the MCP path an SSE stream without end), a request not whole, or
        an answer already streaming (a `subscriptions/listen` stream, a call's progress): closed
        now, the client taken as gone, as before; closing its stream is how a 2026-07-28 client
        cancels, and kept open the call ran on, and a listen stream held its URIs, until the
        second SSE ping found the connection closed, 15-30 s later."""
        self._eof = True
        if self._lingering is not None:
            return None  # the client's close ends the lingering
        cycle = getattr(self, "cycle", None)
        if cycle is not None and cycle.response_started and not cycle.response_complete:
            return None  # its answer streams: the client went away
        if self._answer_owed():
            self._half_closed = True
            return True  # the transport stays open for writing
        return None

    def _answered(self) -> None:
        """An answer ended: a half-closed connection owed no other is closed."""
        if self._half_closed and not self.transport.is_closing() and not self._answer_owed():
            self.transport.close()

    def pause_writing(self) -> None:
        super().pause_writing()
        self._unread.paused()

    def resume_writing(self) -> None:
        self._unread.resumed()
        super().resume_writing()

    def data_received(self, data: bytes) -> None:
        if self._lingering is None:
            fresh_date(self.server_state)
            self._receiving = True  # (a connection marked idle is no longer: bytes came)
            try:
                super().data_received(data)  # (uvicorn's protocol, after this in the MRO)
            finally:
                self._receiving = False
            return
        self._drained += len(data)  # dropped: the connection is closed to the request
        if self._drained > LINGER_BYTES:
            self._raw.close()

    def _linger(self) -> None:
        """Close the connection, lingering (module docstring) unless the client is idle, has sent
        its last byte, or the cap needs the room."""
        raw = self._raw
        if self._lingering is not None or raw.is_closing():
            return
        crowded = len(self.connections) >= self._cap.cap
        idle = self._cap.idle(self) and not self._receiving
        if self._eof or crowded or idle or not raw.can_write_eof():
            raw.close()
            return
        self._lingering = self.loop.call_later(LINGER_SECONDS, raw.close)
        self._deadline.disarm()
        self._cap.mark(self, "gone")
        raw.write_eof()  # (after the answer's last byte)
        raw.resume_reading()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._raw = cast("asyncio.Transport", transport)
        super().connection_made(cast("asyncio.Transport", _Lingering(self._raw, self)))
        if not self._cap.refused(self):
            self._deadline.arm()
            self._cap.mark(self, "idle")

    def connection_lost(self, exc: Exception | None) -> None:
        if self._lingering is not None:
            self._lingering.cancel()
        self._deadline.disarm()
        self._unread.resumed()
        self._cap.mark(self, "gone")
        super().connection_lost(exc)
