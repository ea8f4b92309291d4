"""`service.http.pieces`: llhttp fed in pieces reads what it reads fed whole, wherever the reads
are cut, and a chunk size in more than 16 hex digits is refused wherever it falls."""

from __future__ import annotations

from typing import Any

import httptools
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from service.http.pieces import Pieces
from service.http.strict import LONG_CHUNK_SIZE

BODY = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n\n\r\n'
STREAM = (
    b"\r\n\r\nGET /a HTTP/1.1\r\nHost: h\r\n\r\n"
    + b"POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: %d\r\n\r\n" % len(BODY)
    + BODY
    + b"POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
    + b"%x;a=b\r\n" % len(BODY)
    + BODY
    + b"\r\n0000000000000003\r\nxyz\r\n0\r\nX-T: 1\r\n\r\n"
    + b"POST /d HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
)


class Recorder:
    """The callbacks `HeadLimitedHttpTools` passes on to `Pieces`, and what llhttp read."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.headers: list[tuple[bytes, bytes]] = []
        self.refused: list[str] = []
        self.parser = Pieces(httptools.HttpRequestParser(self), self.refused.append)

    def on_url(self, url: bytes) -> None:
        self.events.append(("url", url))

    def on_message_begin(self) -> None:
        self.events.append("begin")

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.append((name.lower(), value))

    def on_headers_complete(self) -> None:
        self.events.append(("line", self.parser.request_line()))
        chunked = any(n == b"transfer-encoding" and b"chunked" in v.lower() for n, v in self.headers)
        length = next((int(v) for n, v in self.headers if n == b"content-length"), 0)
        self.parser.body(chunked, length)
        self.headers = []

    def on_body(self, body: bytes) -> None:
        self.events.append(("body", body))

    def on_chunk_complete(self) -> None:
        self.events.append("chunk")

    def on_message_complete(self) -> None:
        self.events.append("complete")


def read(reads: list[bytes]) -> list[Any]:
    recorder = Recorder()
    for data in reads:
        recorder.parser.feed_data(data)
    joined: list[Any] = []
    for event in recorder.events:  # (llhttp hands a URL or a body over in as many parts as it was cut)
        if joined and isinstance(event, tuple) and joined[-1][0] == event[0]:
            joined[-1] = (event[0], joined[-1][1] + event[1])
        else:
            joined.append(event)
    return joined


def test_the_stream_cut_anywhere_is_read_as_it_is_whole() -> None:
    whole = read([STREAM])
    assert whole.count("complete") == 4 and whole.count("chunk") == 5
    assert ("body", b"xyz") in whole and ("body", b"hello") in whole
    lines = [event[1] for event in whole if isinstance(event, tuple) and event[0] == "line"]
    assert lines == [b"GET /a HTTP/1.1\r\n", b"POST /b HTTP/1.1\r\n", b"POST /c HTTP/1.1\r\n", b"POST /d HTTP/1.1\r\n"]
    for cut in range(1, len(STREAM)):
        assert read([STREAM[:cut], STREAM[cut:]]) == whole, cut
    assert read([STREAM[n : n + 1] for n in range(len(STREAM))]) == whole


@pytest.mark.parametrize("size", [b"0" * 17, b"0" * 1000 + b"5", b"1" + b"0" * 16])
def test_a_chunk_size_over_16_digits_is_refused_wherever_the_reads_are_cut(size: bytes) -> None:
    stream = b"POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n" + size + b"\r\nhello\r\n"
    for cut in range(1, len(stream)):
        recorder = Recorder()
        with pytest.raises(httptools.HttpParserError):
            recorder.parser.feed_data(stream[:cut])
            recorder.parser.feed_data(stream[cut:])
        assert recorder.refused == [LONG_CHUNK_SIZE] or (size[:1] == b"1" and not recorder.refused), cut


def test_a_body_of_many_chunks_is_fed_in_one_call() -> None:
    """The body's size lines are found and checked without a call to llhttp each (1,000 one-byte
    chunks: two feeds, the head and the rest, not 2,000)."""
    recorder = Recorder()
    fed: list[int] = []
    real = recorder.parser._parser
    counting = type("Counting", (), {"feed_data": lambda self, data: fed.append(len(data)) or real.feed_data(data)})
    recorder.parser._parser = counting()
    head = b"POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
    recorder.parser.feed_data(head + b"1\r\nx\r\n" * 1000 + b"0\r\n\r\n")
    assert recorder.events.count("complete") == 1 and len(fed) <= 3, len(fed)


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[int], int]:
    """Pipelined requests (no body, Content-Length, chunked with extensions and trailers, empty
    lines before one), where the reads are cut, and how many requests there are (a body may hold
    any bytes, a request line's among them)."""
    out = b""
    count = draw(st.integers(1, 4))
    for n in range(count):
        body = draw(st.binary(max_size=40))
        out += b"\r\n" * draw(st.integers(0, 2)) + b"POST /%d HTTP/1.1\r\nHost: h\r\n" % n
        kind = draw(st.sampled_from(["none", "length", "chunked"]))
        if kind == "length":
            out += b"Content-Length: %d\r\n\r\n" % len(body) + body
        elif kind == "chunked":
            out += b"Transfer-Encoding: chunked\r\n\r\n"
            at = 0
            while at < len(body):
                size = draw(st.integers(1, max(1, len(body) - at)))
                zeros = b"0" * draw(st.integers(0, 3))
                ext = draw(st.sampled_from([b"", b";a=b", b';q="x y"']))
                out += zeros + b"%x" % size + ext + b"\r\n" + body[at : at + size] + b"\r\n"
                at += size
            out += b"0\r\n" + draw(st.sampled_from([b"", b"X-T: 1\r\n"])) + b"\r\n"
        else:
            out += b"\r\n"
    cuts = sorted(set(draw(st.lists(st.integers(1, max(1, len(out) - 1)), max_size=6))))
    return out, cuts, count


@settings(max_examples=300, deadline=None)
@given(streams())
@example((b"POST /0 HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nHTTP/1.1\r\n", [], 1))
def test_any_pipelined_stream_cut_anywhere_is_read_as_it_is_whole(case: tuple[bytes, list[int], int]) -> None:
    stream, cuts, count = case
    reads = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    assert read(reads) == read([stream])
    assert read([stream]).count("complete") == count
