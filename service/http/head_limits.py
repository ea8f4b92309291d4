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
answered 431 too; a head over it that arrives whole in one read passes h11 and is answered 431 at
the edge (`service.http.edge`), which also checks the number of header fields (431), whatever the
implementation.

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

How many connections may be open at once, and how long an answer may wait on a client that
reads none of it, is bounded for either implementation too: `service.http.connections` (the
overrides both protocol classes share, `Held`).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, cast

from service.http.connections import Held, closing
from service.http.connections import _Over as _Over
from service.http.connections import _Unread as _Unread
from service.http.hosts import NO_HOST, NOT_A_TARGET, TARGET, absolute_target
from service.http.pieces import Pieces
from service.http.strict import (
    LONG_CHUNK_LINE,
    METHOD,
    NO_VERSION,
    SPACES,
    STATUS,
    TWICE,
    UNKNOWN_METHOD,
    VERSION,
    OddRequest,
    StrictH11,
    llhttp_reason,
    lowered_method,
    spaced,
    unknown_method,
    versionless,
)
from service.protocol.framing import INVALID_REQUEST, Refused

REASON = "Request Header Fields Too Large"
TAIL_BYTES = 512  # what is kept of the bytes before a read (`strict`'s method checks look back at them)
EARLY_CLOSE_SECONDS = 5.0  # a connection answered before its body was in: closed this soon, not at the keep-alive


class HeadTooLarge(Exception):
    """Raised inside the parser's callback: the head grew past the limit."""


def too_large(max_bytes: int) -> Refused:
    return Refused(INVALID_REQUEST, f"the request line and headers are over {max_bytes} bytes", 431)


def response_431(refused: Refused) -> bytes:
    """A complete HTTP/1.1 431 response that closes the connection."""
    return closing(refused, REASON)


def response_400(reason: str = "the HTTP request is malformed (request line, headers or body framing)") -> bytes:
    """What a request the HTTP parser cannot read (request line, header syntax, chunk framing) is
    answered, for either implementation: uvicorn's own answer was a plain-text 400 ("Invalid HTTP
    request received."), the only answer of the server without a JSON-RPC error body."""
    status = STATUS.get(reason, 400)  # (501, 505: `service.http.strict`)
    refused = Refused(INVALID_REQUEST, reason, status)
    return closing(refused, {400: "Bad Request", 501: "Not Implemented", 505: "HTTP Version Not Supported"}[status])


def head_limited(
    impl: str, max_bytes: int, read_seconds: float, max_connections: int | None = None, unread_seconds: float = 30.0
) -> type[asyncio.Protocol]:
    """The uvicorn `http` option for `impl` ("httptools" or "h11"): heads bounded to `max_bytes`
    (h11's bound is an option, see `uvicorn_options`), requests to arrive within `read_seconds`,
    at most `max_connections` connections open (None: no bound) and an answer the client stops
    reading closed after `unread_seconds` (`_Unread`)."""
    over = _Over(max_connections if max_connections is not None else 2**62)
    if impl == "h11":
        return _h11_deadlined(max_bytes, read_seconds, over, unread_seconds)
    import httptools
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HeadLimitedHttpTools(Held, HttpToolsProtocol):  # type: ignore[misc]  # (eof_received may return True: `Held`)
        """uvicorn's httptools protocol, refusing a head over `max_bytes` while it arrives."""

        _cap, _read_seconds, _unread_seconds = over, read_seconds, unread_seconds

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._in_head = False  # a request has begun and its headers are not complete yet
            self._head_bytes = 0  # the URL and the header fields parsed so far
            self._read = 0  # bytes received while the head was incomplete, after the read it began in
            self._begun = False  # a request began in the bytes being parsed now
            self._over = False
            self._headed = False  # the message being read has its head: `self.cycle` is its own
            self._fault: str | None = None  # why a callback stopped the parser (`send_400_response`)
            self._data = b""  # the bytes being parsed
            self._tail = b""  # the last `TAIL_BYTES` received before them
            self._chunk_line = False  # a chunk-size line (or the trailers) is arriving
            self._chunk_line_read = 0  # bytes received for it, after the read it began in
            self._chunk_heads = 0  # chunk-size lines completed in the bytes being parsed
            self._refusal: bytes | None = None  # the 400 owed once the requests read before it are answered
            self.parser = cast("httptools.HttpRequestParser", Pieces(self.parser, self._refused))

        def _refused(self, fault: str) -> None:
            self._fault = fault  # (`Pieces`: a chunk size too long, told by `send_400_response`)

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

        def on_chunk_header(self) -> None:
            self._chunk_line, self._chunk_line_read = False, 0
            self._chunk_heads += 1

        def on_chunk_complete(self) -> None:
            self._chunk_line = True  # the next chunk's size line, or the trailers after the last

        def on_message_complete(self) -> None:
            self._chunk_line = False
            self._deadline.disarm()
            super().on_message_complete()
            # Answered before its body was in (406, 413): the body's bytes cancelled uvicorn's keep-alive
            # timer and nothing armed it again, so the connection stayed open for good.
            early = self.cycle.response_complete and not self.pipeline and not self.transport.is_closing()
            if early and self.timeout_keep_alive_task is None:
                self.timeout_keep_alive_task = self.loop.call_later(
                    min(self.timeout_keep_alive, EARLY_CLOSE_SECONDS), self.timeout_keep_alive_handler
                )

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
            version = self.parser.get_http_version()
            if version == "0.9":  # llhttp read `GET /x` with no version (`strict`)
                self._fault = NO_VERSION
            elif version not in ("1.0", "1.1"):  # (2.0: llhttp refuses the others itself)
                self._fault = VERSION
            elif spaced(cast(Pieces, self.parser).request_line()):
                self._fault = SPACES
            if self._fault is not None:
                raise OddRequest(self._fault)
            if self.url[:1] != b"/" and self.url != b"*":  # the edge checks it (`service.http.hosts`, `edge`)
                parsed = absolute_target(self.url)  # absolute form: its path for uvicorn (which failed
                # `http://host` with no path); any other (`host:port`) a path too, the edge refuses it
                cast("dict[str, Any]", self.scope)[TARGET], self.url = self.url, parsed[2] if parsed else b"/"
            elif b"#" in self.url:  # the edge refuses a fragment, which httptools drops unsaid
                cast("dict[str, Any]", self.scope)[TARGET] = self.url
            super().on_headers_complete()
            self._headed = True
            coding = b", ".join(value for name, value in self.headers if name == b"transfer-encoding")
            self._chunk_line = b"chunked" in coding.lower()
            length = next((int(value) for name, value in self.headers if name == b"content-length"), 0)
            cast(Pieces, self.parser).body(self._chunk_line, length)

        def _unsupported_upgrade_warning(self) -> None:
            if self.scope.get("method") != "CONNECT":  # (llhttp takes CONNECT for an upgrade: the edge answers 405)
                super()._unsupported_upgrade_warning()

        def on_response_complete(self) -> None:
            pipelined = bool(self.pipeline)  # then the next request's answer begins now
            super().on_response_complete()
            if self._refusal is not None and not self.transport.is_closing() and not self._earlier_owed():
                self.transport.write(self._refusal)  # (`send_400_response`: deferred until now)
                self.transport.close()
            if self.transport.is_closing() or pipelined:
                over.mark(self, "gone" if self.transport.is_closing() else "busy")
            else:
                over.mark(self, "head" if self._in_head else "idle")
            self._answered()

        def _answer_owed(self) -> bool:
            cycle = self.cycle  # (the request read last; one pipelined before it is answered first)
            return cycle is not None and not (cycle.response_complete or cycle.more_body or self._get(cycle.scope))

        def data_received(self, data: bytes) -> None:
            self._begun, self._data = False, data
            in_line, self._chunk_heads = self._chunk_line, 0
            try:
                super().data_received(data)
            finally:  # (the bytes before `data` the method's checks look back at: a method sent in pieces)
                self._tail = (self._tail + data)[-TAIL_BYTES:]
            if in_line and self._chunk_line and not self._chunk_heads and not self.transport.is_closing():
                self._chunk_line_read += len(data)  # (llhttp reads chunk extensions without a bound)
                if self._chunk_line_read > max_bytes:
                    self._long_chunk_line()
            if not self._in_head or self.transport.is_closing():
                return
            if self.url and not self.headers and self._versionless(data):
                self.send_400_response(NO_VERSION)
            elif not self._begun:  # (a head begun in `data`: what came before it is the previous request's)
                self._read += len(data)  # the head is still incomplete: a field is still arriving
                if self._read > max_bytes:
                    self._refuse()

        def _versionless(self, data: bytes) -> bool:
            """A request line without a version (HTTP/0.9) has ended: llhttp waits for headers that
            such a client never sends (`strict`), so it is answered now. The line came whole in
            `data`, or ended in it: llhttp's version stays 0.0 past such a line (it holds the
            previous request's when pipelined, so then only the whole line tells)."""
            line = self.parser.get_method() + b" " + self.url + b"\r\n"
            at = data.find(line)
            whole = at == 0 or (at > 0 and data[at - 1 : at] == b"\n")
            ended = self.parser.get_http_version() == "0.0" and data.rfind(b"\n") > data.rfind(self.url)
            if not (whole or ended):
                return False
            self._fault = NO_VERSION
            return True

        def send_400_response(self, msg: str) -> None:
            if self._over:
                self._refuse()
                return
            if self._refusal is None:  # the parser's error (uvicorn has logged it): the JSON body every
                # refusal has; a target llhttp reads in no form (`host:port` but with CONNECT) told as
                # the edge tells h11's, the shapes h11 is held to as well as `service.http.strict` does
                failed = sys.exc_info()[1]  # (called in uvicorn's `except HttpParserError`)
                if isinstance(failed, httptools.HttpParserInvalidURLError):
                    reason: str | None = f"the request target {NOT_A_TARGET}"
                elif isinstance(failed, httptools.HttpParserInvalidMethodError):
                    seen = self._tail + self._data
                    reason = METHOD if lowered_method(seen) else UNKNOWN_METHOD if unknown_method(seen) else None
                else:
                    reason = (
                        self._fault or llhttp_reason(str(failed)) or (NO_VERSION if versionless(self._data) else None)
                    )
                self._refusal = response_400(reason) if reason else response_400()
            refused = [queued for queued in self.pipeline if queued[0].more_body]  # its own cycle: never run
            for queued in refused:
                self.pipeline.remove(queued)
            if refused or self._earlier_owed():  # a request read whole before it is answered first
                self.flow.pause_reading()  # (h11 reads a pipelined request only then, too)
                return
            self.transport.write(self._refusal)
            self.transport.close()

        def _earlier_owed(self) -> bool:
            cycle = self.cycle  # (the refused request's own cycle, if its head was read, is owed nothing)
            return bool(self.pipeline) or (cycle is not None and not cycle.response_complete and not cycle.more_body)

        def _long_chunk_line(self) -> None:
            self.logger.warning("chunk-size line or trailers over %d bytes: 400", max_bytes)
            if self.cycle is None or not self.cycle.response_started or self.cycle.response_complete:
                self.transport.write(response_400(LONG_CHUNK_LINE))  # (else an answer is cut: just closed)
            self.transport.close()

        def _refuse(self) -> None:
            self._in_head = False
            self.logger.warning("request head over %d bytes: 431", max_bytes)
            self.transport.write(response_431(too_large(max_bytes)))
            self.transport.close()

    return HeadLimitedHttpTools


def _h11_deadlined(max_bytes: int, read_seconds: float, over: _Over, unread_seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with the same arrival deadline as the httptools one. h11 reports a
    request only once its head is whole, so the deadline follows h11's state of the client's side:
    armed when the connection opens and when bytes of a message arrive that do not complete it
    (the state is IDLE with bytes held, or SEND_BODY), cleared once the message is whole (DONE; a
    pipelined request is held PAUSED in DONE until the answer before it ends, then read)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class DeadlinedH11(Held, H11Protocol):  # type: ignore[misc]
        _cap, _read_seconds, _unread_seconds = over, read_seconds, unread_seconds

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.conn = StrictH11(h11.SERVER, max_bytes)  # (what httptools refuses: `service.http.strict`)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()  # reads a pipelined request held until now
            self._follow()
            self._answered()

        def _answer_owed(self) -> bool:
            cycle, whole = self.cycle, self.conn.their_state in (h11.DONE, h11.MUST_CLOSE)  # (MUST_CLOSE:
            # whole, sent with `Connection: close`; a half-close after it was dropped unanswered)
            return cycle is not None and whole and not (cycle.response_complete or self._get(cycle.scope))

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
            """h11 could not read the request (uvicorn has logged it): the JSON body every refusal has;
            431 when what it holds is over `max_bytes` (its `max_incomplete_event_size`: a head that
            long and still incomplete)."""
            held, failed = len(self.conn.trailing_data[0]), sys.exc_info()[1]  # (in uvicorn's `except`)
            told = {"Missing mandatory Host": NO_HOST, "Found multiple Host": TWICE.format("host")}  # as the edge tells
            odd = next((reason for start, reason in told.items() if str(failed).startswith(start)), None)  # httptools'
            odd = str(failed) if isinstance(failed, OddRequest) else odd
            plain = response_400(odd) if odd else response_400()
            if held > max_bytes:  # a head, or a chunk-size line or the trailers, that long and incomplete
                body = self.cycle is not None and self.cycle.more_body  # (h11's own state is ERROR now)
                plain = response_400(LONG_CHUNK_LINE) if body else response_431(too_large(max_bytes))
            self.transport.write(plain)
            self.transport.close()

        def _too_slow(self) -> None:
            if self.transport.is_closing() or self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
                return
            reading_body = self.conn.their_state is h11.SEND_BODY and self.cycle is not None
            self._deadline.close(self.transport, self.logger, reading_body and self.cycle.response_started)

    return DeadlinedH11


def uvicorn_options(
    impl: str,
    max_bytes: int,
    read_seconds: float,
    max_connections: int | None = None,
    unread_seconds: float = 30.0,
    keep_alive_seconds: float = 120.0,
) -> dict[str, Any]:
    """The `uvicorn.Config` options that bound a request's head, its arrival time, the
    connections open for `impl` (`max_connections`: `connection_cap` of the setting), how long
    an answer may wait on a client that reads none of it, and how long an idle connection is kept
    (`http.keep_alive_seconds`: uvicorn's 5 s equals httpx's idle expiry, so a client reusing a
    connection just as the server closed it got a reset instead of an answer)."""
    return {
        "http": head_limited(impl, max_bytes, read_seconds, max_connections, unread_seconds),
        "h11_max_incomplete_event_size": max_bytes,
        "timeout_keep_alive": keep_alive_seconds,
    }
