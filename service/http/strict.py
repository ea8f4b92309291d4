"""Request shapes one of uvicorn's two parsers let through and the other refused, refused by both.

httptools (llhttp) refuses these itself; h11 read them leniently, and a proxy in front that reads
them otherwise frames the request differently (request smuggling). Each is answered **400**, a
JSON-RPC -32600 body naming what is wrong, and the connection closed, with either parser:
- a header line that begins with a space or tab (obsolete line folding; RFC 9112 5.2 allows a
  400): h11 joined it to the field before, llhttp refuses it;
- Content-Length sent twice or as a list, even of equal values (RFC 9110 8.6 allows a 400): h11
  kept one, llhttp refuses both;
- a chunk extension that is not `;name[=token or quoted string]` (a control character, a tab or a
  byte over 0x7e outside quotes; RFC 9112 7.1.1), or whitespace after the chunk size: h11 dropped
  the extension unread and took the whitespace, llhttp refuses both;
- a control character (but HTAB) in a header field value (RFC 9110 5.5): h11 kept it, llhttp
  refuses it;
- a line of the head (or a chunk line) that ends in LF without CR (RFC 9112 2.2 lets a server
  accept it): h11 accepted it, llhttp refuses it;
- a method with lower-case letters (`get`; methods are case-sensitive, RFC 9110 9.1): h11 passed
  it on (405), llhttp refuses it;
- a request line without an HTTP version (HTTP/0.9, `GET /healthz`): h11 refused it (or, the line
  alone, waited for more), httptools served it an HTTP/1.1 answer. Refused as soon as the line is
  in, rather than at the 408 deadline.
Requests that split nothing but were answered differently are answered the same too:
- a method neither parser's list knows (`FOO`; the IANA methods llhttp reads are `KNOWN_METHODS`):
  **501** and closed (RFC 9110 9.1: an origin server SHOULD answer an unrecognized method 501;
  405 is for a method it recognizes that the target does not take, as PUT /mcp still is). h11
  passed it on (404 or 405), llhttp refused it 400;
- an HTTP version other than 1.0 and 1.1 (`HTTP/1.2`, `HTTP/2.0`, `HTTP/3.0`): **505** and closed
  (RFC 9110 15.6.6). h11 served each, llhttp served 2.0 and refused the others 400;
- more than one space between the request line's parts (`GET  /x HTTP/1.1`): **400** and closed
  (RFC 9112 3: single spaces). llhttp served it, h11 refused it;
- a chunk-size line (a long chunk extension) or trailer section over the head's limit
  (`http.max_header_bytes`): **400** `LONG_CHUNK_LINE` and closed. llhttp read it without end,
  h11 answered it 431 as a head over the limit;
- a chunk size in more than `MAX_SIZE_DIGITS` hex digits, leading zeros included: **400**
  `LONG_CHUNK_SIZE` and closed. llhttp read any number of leading zeros (`service.http.pieces`
  cuts its reads so that each size line is checked), h11 refused past 20 digits, unnamed. RFC 9112
  7.1 bids a recipient guard against large numerals; 16 digits hold any 64-bit size, and a proxy
  that stops at its own count frames the rest otherwise, so the stricter reading is taken.
Empty lines (CRLF) before a request line are skipped by both (RFC 9112 2.2 "SHOULD"; h11 refused
them, llhttp skips them).
h11 gets the checks through its own reader hooks (`StrictH11`); httptools' refusals name the same
reason (`llhttp_reason`), and its protocol class checks the version (`service.http.head_limits`).
The hooks are h11 0.16's internals (pinned in pyproject.toml): `check_hooks` runs at import and
refuses to start on an h11 whose internals moved, rather than letting every shape through unsaid.
"""

from __future__ import annotations

import re
from typing import Any

import h11
from h11._readers import READERS, ChunkedReader, maybe_read_from_IDLE_client
from h11._receivebuffer import ReceiveBuffer

FOLDED = "a header line begins with a space or tab (obsolete line folding, RFC 9112 5.2)"
LENGTHS = "Content-Length is sent more than once, as a list, or not as one decimal number (RFC 9112 6.3)"
CHUNK_EXT = (
    "a chunk-size line is not hex digits then chunk extensions ';name' or ';name=value' of token or"
    " quoted-string characters (RFC 9112 7.1)"
)
CONTROL = "a header field value carries a control character (RFC 9110 5.5)"
BARE_LF = "a line of the request ends in LF without CR (RFC 9112 2.2)"
METHOD = "the request method has lower-case letters: methods are case-sensitive (RFC 9110 9.1)"
NO_VERSION = "the request line carries no HTTP version (HTTP/0.9 is not served)"
UNKNOWN_METHOD = "the request method is not one this server knows (RFC 9110 9.1)"
VERSION = "the HTTP version is not 1.0 or 1.1, the versions served (RFC 9110 15.6.6)"
SPACES = "the request line's method, target and version are not separated by single spaces (RFC 9112 3)"
MAX_SIZE_DIGITS = 16  # a chunk size's hex digits at most, leading zeros included: 64 bits' worth
LONG_CHUNK_SIZE = f"a chunk size is written in more than {MAX_SIZE_DIGITS} hex digits (RFC 9112 7.1)"
LONG_CHUNK_LINE = "a chunk-size line (its extensions included) or the trailer section is over the head's limit"
BOTH_FRAMINGS = "the request carries both Content-Length and Transfer-Encoding"  # (RFC 9112 6.1)
TWICE = "the {} header field is sent more than once"  # (Host: RFC 9112 3.2, h11 refuses it)
STATUS = {UNKNOWN_METHOD: 501, VERSION: 505}  # a refusal's status when not 400
KNOWN_METHODS = frozenset(  # llhttp's HTTP methods (CONNECT: the edge answers it 405)
    b"ACL BIND CHECKOUT CONNECT COPY DELETE GET HEAD LINK LOCK M-SEARCH MERGE MKACTIVITY MKCALENDAR MKCOL MOVE"
    b" NOTIFY OPTIONS PATCH POST PROPFIND PROPPATCH PURGE PUT QUERY REBIND REPORT SEARCH SOURCE SUBSCRIBE TRACE"
    b" UNBIND UNLINK UNLOCK UNSUBSCRIBE".split()
)

_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_QUOTED = rb'"(?:[\t !#-\[\]-~\x80-\xff]|\\[\t -~\x80-\xff])*"'
_CHUNK_LINE = re.compile(rb"[0-9A-Fa-f]+((?:;" + _TOKEN + rb"(?:=(?:" + _TOKEN + rb"|" + _QUOTED + rb"))?)*)\r\n")
_HEX = re.compile(rb"[0-9A-Fa-f]*")
_CONTROL = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")  # a CTL but HTAB (the line's CRLF cut off first)
_BLANK = re.compile(rb"\n\r?\n")  # where h11 ends a head
_VERSIONLESS = re.compile(rb"(?:^|\n)[A-Z]+ (?:/|https?://|\*)[^ \r\n]*\r?\n")  # `GET /x` and its line end
_METHOD_START = re.compile(rb"(?:^|\n)(" + _TOKEN + rb")(?: |$)")  # a request line's method (or all of it yet)
_VERSION = re.compile(rb"HTTP/[0-9]\.[0-9]")
_LOWERED = re.compile(rb"(?:^|\n)[!-9;-~]*[a-z][!-9;-~]* [^ \r\n]+ HTTP/")  # a request line, `get / HTTP/`

# What llhttp says when it refuses each shape (the start of its message), told as h11's refusal is
_LLHTTP = (
    ("Unexpected whitespace after header value", FOLDED),
    ("Duplicate Content-Length", LENGTHS),
    ("Invalid character in Content-Length", LENGTHS),
    ("Invalid character in chunk extensions", CHUNK_EXT),
    ("Invalid character in chunk size", CHUNK_EXT),
    ("Invalid header value char", CONTROL),
    ("Expected CRLF after version", BARE_LF),
    ("Missing expected CR after", BARE_LF),
    ("Invalid method for HTTP/x.x request", UNKNOWN_METHOD),  # (an RTSP method)
    ("Expected HTTP/2 Connection Preface", UNKNOWN_METHOD),  # (PRI)
    ("Invalid HTTP version", VERSION),
    ("Chunk size overflow", LONG_CHUNK_SIZE),
    ("Content-Length can't be present with Transfer-Encoding", BOTH_FRAMINGS),
    ("Transfer-Encoding can't be present with Content-Length", BOTH_FRAMINGS),
)


class OddRequest(h11.RemoteProtocolError):
    """A shape of this module's list, raised inside h11's reader: uvicorn answers it 400."""


def request_line_fault(line: bytes) -> str | None:
    """What is wrong with a complete request line (its LF included), if it is one of the shapes:
    its method judged first, as llhttp does (it refuses a method before it reads the line's end)."""
    crlf = line.endswith(b"\r\n")
    parts = line[: -2 if crlf else -1].split(b" ")
    if parts[0] != parts[0].upper():
        return METHOD
    rest = line[len(parts[0]) : -2 if crlf else -1]
    if re.fullmatch(_TOKEN, parts[0]) and parts[0] not in KNOWN_METHODS and _line_so_far(rest):
        return UNKNOWN_METHOD
    if not crlf:
        return BARE_LF
    if len(parts) == 2:
        return NO_VERSION
    if b"" in parts[1:]:
        return SPACES
    if len(parts) == 3 and _VERSION.fullmatch(parts[2]) and parts[2] not in (b"HTTP/1.0", b"HTTP/1.1"):
        return NO_VERSION if parts[2] == b"HTTP/0.9" else VERSION
    return None


def fields_fault(lines: list[bytes]) -> str | None:
    """What is wrong with the header (or trailer) lines of a head, each with its line end."""
    lengths = 0
    for line in lines:
        if not line.endswith(b"\r\n"):
            return BARE_LF
        if line[:1] in (b" ", b"\t"):
            return FOLDED
        name, _, value = line.partition(b":")
        if _CONTROL.search(value, 0, len(value) - 2):
            return CONTROL
        if name.lower() == b"content-length":
            lengths += 1
            if lengths > 1 or not value.strip(b" \t\r\n").isdigit():
                return LENGTHS
    return None


def head_fault(held: bytes) -> str | None:
    """What is wrong with the head at the start of `held` (what h11 holds while it waits for a
    head): its request line once it is in, its fields once the head is whole."""
    end = held.find(b"\n")
    if end < 0:
        return None
    fault = request_line_fault(held[: end + 1])
    blank = _BLANK.search(held, end)
    if fault is not None or blank is None:
        return fault
    return fields_fault(held[end + 1 : blank.start() + 1].splitlines(keepends=True))


def chunk_line_fault(line: bytes) -> str | None:
    """What is wrong with a chunk-size line (CRLF included, as h11 cuts it), if anything of the list."""
    if b"\n" in line[:-1]:
        return BARE_LF
    if size_digits(line) > MAX_SIZE_DIGITS:
        return LONG_CHUNK_SIZE
    return None if _CHUNK_LINE.fullmatch(line) else CHUNK_EXT


def size_digits(line: bytes | memoryview) -> int:
    """How many hex digits the chunk-size line (or its start) `line` begins with."""
    match = _HEX.match(line)
    return match.end() if match else 0


def versionless(data: bytes) -> bool:
    """Whether `data` (which llhttp refused) holds a request line without a version: pipelined
    behind another request, llhttp read the next request line as a header of it."""
    return _VERSIONLESS.search(data) is not None


def lowered_method(data: bytes) -> bool:
    """Whether `data` (in which llhttp found a method it does not know) holds a request line whose
    method has lower-case letters (llhttp's refusal does not say where the request began)."""
    return _LOWERED.search(data) is not None


def unknown_method(data: bytes) -> bool:
    """Whether `data` (in which llhttp found a method it does not know) holds a request line, or
    the start of one, whose method is a token of `KNOWN_METHODS`' case but none of them."""
    return any(
        m[1] == m[1].upper() and m[1] not in KNOWN_METHODS and _line_so_far(data[m.end(1) :].split(b"\n", 1)[0])
        for m in _METHOD_START.finditer(data)
    )


def _line_so_far(rest: bytes) -> bool:
    """Whether `rest`, what follows a method on its line (to its end or as far as it has come), is
    or begins ` target HTTP/...`: a request line but for its method (else it is malformed: 400)."""
    parts = rest.rstrip(b"\r").split(b" ")
    if parts[0] != b"" or len(parts) > 3:
        return len(parts) == 1 and not rest  # (the method alone so far)
    if len(parts) < 3:
        return True
    return parts[1] != b"" and (parts[2].startswith(b"HTTP/") or b"HTTP/".startswith(parts[2]))


def spaced(line: bytes) -> bool:
    """Whether the request line `line` has more than one space between its parts (llhttp skips them)."""
    return b"" in line.rstrip(b"\r\n").split(b" ")[1:]


def llhttp_reason(message: str) -> str | None:
    """This module's reason for llhttp's refusal `message`, when it is one of the shapes."""
    return next((reason for start, reason in _LLHTTP if message.startswith(start)), None)


def _refuse(fault: str | None) -> None:
    if fault is not None:
        raise OddRequest(fault, error_status_hint=STATUS.get(fault, 400))


class _Checked:
    """h11's receive buffer as its readers see it, each head, chunk line and trailer checked first."""

    def __init__(self, buf: Any, head: bool) -> None:
        self._buf, self._head = buf, head

    def maybe_extract_lines(self) -> Any:
        held = bytes(self._buf)
        if self._head:
            skipped = len(held) - len(held.lstrip(b"\r\n"))  # empty lines before a request line are
            skipped -= skipped % 2  # skipped (RFC 9112 2.2), as llhttp does: h11 refused them
            if skipped and held[:skipped] == b"\r\n" * (skipped // 2):
                self._buf.maybe_extract_at_most(skipped)
                held = held[skipped:]
            _refuse(head_fault(held))
        elif held[:1] == b"\n":  # trailers: none, but the blank line ends in LF alone
            _refuse(BARE_LF)
        elif held[:2] != b"\r\n" and (blank := _BLANK.search(held)) is not None:
            _refuse(fields_fault(held[: blank.start() + 1].splitlines(keepends=True)))
        return self._buf.maybe_extract_lines()

    def maybe_extract_next_line(self) -> Any:
        line = self._buf.maybe_extract_next_line()
        if line is not None:
            _refuse(chunk_line_fault(bytes(line)))
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._buf, name)


def _read_head(buf: Any) -> Any:
    checked: Any = _Checked(buf, head=True)  # (h11's readers take its buffer's methods only)
    return maybe_read_from_IDLE_client(checked)


class _Chunks:
    def __init__(self, reader: ChunkedReader) -> None:
        self._reader = reader

    def __call__(self, buf: Any) -> Any:
        checked: Any = _Checked(buf, head=False)
        return self._reader(checked)

    def read_eof(self) -> Any:
        return self._reader.read_eof()


class StrictH11(h11.Connection):
    """h11's server connection, refusing this module's shapes (`OddRequest`) as it reads them."""

    def _get_io_object(self, role: Any, event: Any, io_dict: Any) -> Any:
        got = super()._get_io_object(role, event, io_dict)
        if io_dict is not READERS:
            return got
        if got is maybe_read_from_IDLE_client:
            return _read_head
        return _Chunks(got) if isinstance(got, ChunkedReader) else got


def check_hooks() -> None:
    """Raise ImportError unless h11's internals are those `StrictH11` hooks: the reader table, the
    buffer methods the checks wrap, the method that picks a reader, and a lower-case method refused
    through them (the hook taking effect, not only existing)."""
    missing = [
        name
        for name, there in (
            ("Connection._get_io_object", callable(getattr(h11.Connection, "_get_io_object", None))),
            ("READERS[CLIENT, IDLE]", READERS.get((h11.CLIENT, h11.IDLE)) is maybe_read_from_IDLE_client),
            ("READERS[SEND_BODY]['chunked']", _chunked_reader() is ChunkedReader),
            *((f"ReceiveBuffer.{m}", callable(getattr(ReceiveBuffer, m, None))) for m in _BUFFER_METHODS),
        )
        if not there
    ]
    if not missing:
        conn = StrictH11(h11.SERVER)
        conn.receive_data(b"get / HTTP/1.1\r\nHost: a\r\n\r\n")
        try:
            conn.next_event()
            missing.append("the reader hook (a lower-case method was read)")
        except OddRequest:
            pass
    if missing:
        version = getattr(h11, "__version__", "?")
        raise ImportError(f"h11 {version}: the internals service.http.strict hooks moved: {', '.join(missing)}")


def _chunked_reader() -> Any:
    body = READERS.get(h11.SEND_BODY)
    return body.get("chunked") if isinstance(body, dict) else None


_BUFFER_METHODS = ("maybe_extract_lines", "maybe_extract_next_line", "maybe_extract_at_most")
check_hooks()
