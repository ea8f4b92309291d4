"""The odd request shapes both parsers refuse (`service.http.strict`), read as h11 reads them."""

from __future__ import annotations

import h11
import pytest

from service.http import strict

HEAD = b"POST /mcp HTTP/1.1\r\nHost: a\r\n"
CHUNKED = HEAD + b"Transfer-Encoding: chunked\r\n\r\n"


def _events(raw: bytes) -> list[object]:
    """What the strict connection reads of `raw` (until it needs more data or the message ends)."""
    conn = strict.StrictH11(h11.SERVER)
    conn.receive_data(raw)
    events: list[object] = []
    while (event := conn.next_event()) is not h11.NEED_DATA:
        events.append(event)
        if isinstance(event, h11.EndOfMessage):
            break
    return events


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (HEAD + b"X: a\r\n b\r\nContent-Length: 0\r\n\r\n", strict.FOLDED),
        (HEAD + b"Content-Length: 1\r\nContent-Length: 1\r\n\r\nx", strict.LENGTHS),
        (HEAD + b"Content-Length: 1, 1\r\n\r\nx", strict.LENGTHS),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n1;a=\x01\r\nx\r\n0\r\n\r\n", strict.CHUNK_EXT),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n1;a=b\tc\r\nx\r\n0\r\n\r\n", strict.CHUNK_EXT),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n1\nx\r\n0\r\n\r\n", strict.BARE_LF),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n1 \r\nx\r\n0\r\n\r\n", strict.CHUNK_EXT),
        (HEAD + b"X: a\x01b\r\nContent-Length: 0\r\n\r\n", strict.CONTROL),
        (HEAD + b"X: a\x7f\r\nContent-Length: 0\r\n\r\n", strict.CONTROL),
        (HEAD + b"Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nX: a\r\n b\r\n\r\n", strict.FOLDED),
        (b"GET / HTTP/1.1\nHost: a\n\n", strict.BARE_LF),
        (b"GET / HTTP/1.1\r\nHost: a\n\r\n", strict.BARE_LF),
        (b"get / HTTP/1.1\r\nHost: a\r\n\r\n", strict.METHOD),
        (b"GET /healthz\r\n", strict.NO_VERSION),
        (b"GET /healthz HTTP/0.9\r\n", strict.NO_VERSION),
        (b"FOO / HTTP/1.1\r\nHost: a\r\n\r\n", strict.UNKNOWN_METHOD),
        (b"DESCRIBE / HTTP/1.1\r\n", strict.UNKNOWN_METHOD),
        (b"GET / HTTP/1.2\r\nHost: a\r\n\r\n", strict.VERSION),
        (b"GET / HTTP/2.0\r\nHost: a\r\n\r\n", strict.VERSION),
        (b"GET  / HTTP/1.1\r\nHost: a\r\n\r\n", strict.SPACES),
        (b"GET /  HTTP/1.1\r\nHost: a\r\n\r\n", strict.SPACES),
        (CHUNKED + b"0" * 16 + b"1\r\nx\r\n0\r\n\r\n", strict.LONG_CHUNK_SIZE),
        (CHUNKED + b"0" * 1000 + b"1;a=b\r\nx\r\n0\r\n\r\n", strict.LONG_CHUNK_SIZE),
    ],
)
def test_h11_refuses_each_odd_shape_with_its_reason(raw: bytes, reason: str) -> None:
    with pytest.raises(strict.OddRequest) as caught:
        _events(raw)
    assert str(caught.value) == reason
    assert caught.value.error_status_hint == {strict.UNKNOWN_METHOD: 501, strict.VERSION: 505}.get(reason, 400)


def test_h11_still_reads_what_both_parsers_take() -> None:
    events = _events(HEAD + b'Transfer-Encoding: chunked\r\n\r\n1;a="b c";d=e\r\nx\r\n0\r\n\r\n')
    assert [type(e) for e in events] == [h11.Request, h11.Data, h11.EndOfMessage]
    events = _events(CHUNKED + b"0" * 15 + b"1\r\nx\r\n0\r\n\r\n")
    assert [type(e) for e in events] == [h11.Request, h11.Data, h11.EndOfMessage]
    events = _events(b"\r\nGET / HTTP/1.1\r\nHost: a\r\nX: one\ttwo \xe9\r\n\r\n")
    assert isinstance(events[0], h11.Request) and events[0].method == b"GET"


def test_llhttp_refusals_are_told_with_the_same_reasons() -> None:
    assert strict.llhttp_reason("Unexpected whitespace after header value") == strict.FOLDED
    assert strict.llhttp_reason("Duplicate Content-Length") == strict.LENGTHS
    assert strict.llhttp_reason("Invalid character in chunk extensions value") == strict.CHUNK_EXT
    assert strict.llhttp_reason("Missing expected CR after header value") == strict.BARE_LF
    assert strict.llhttp_reason("Invalid header value char") == strict.CONTROL
    assert strict.llhttp_reason("Invalid header token") is None
    assert strict.lowered_method(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nget / HTTP/1.1\r\n")
    assert not strict.lowered_method(b"GET / HTTP/1.1\r\nHost: a HTTP/1\r\n\r\n")
    assert strict.versionless(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /healthz\r\nHost: a\r\n")
    assert not strict.versionless(b"GET / HTTP/1.1\r\nHost: a\r\nX: /b\r\n\r\n")
    assert strict.llhttp_reason("Invalid HTTP version") == strict.VERSION
    assert strict.llhttp_reason("Chunk size overflow") == strict.LONG_CHUNK_SIZE
    assert strict.llhttp_reason("Invalid method for HTTP/x.x request") == strict.UNKNOWN_METHOD
    assert strict.unknown_method(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nFOO / HTTP/1.1\r\n")
    assert strict.unknown_method(b"\r\n\r\nFO")  # (the method's start, sent in pieces)
    assert strict.unknown_method(b"FOO /x HT") and not strict.unknown_method(b"NOT A REQUEST LINE\r\n")
    assert strict.request_line_fault(b"NOT A REQUEST LINE\r\n") is None  # (h11's own 400: malformed)
    assert not strict.unknown_method(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n\x00GET / HTTP/1.1\r\n")
    assert strict.spaced(b"GET  /x HTTP/1.1\r\n") and strict.spaced(b"GET /x   HTTP/1.1\r\n")
    assert not strict.spaced(b"GET /x HTTP/1.1\r\n") and not strict.spaced(b"GET /x?a%20b HTTP/1.1\r\n")


def test_h11_internals_the_checks_hook_are_checked_at_import() -> None:
    strict.check_hooks()  # (it also ran when the module was imported)
    import tomllib
    from pathlib import Path

    pinned = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text())["project"]["dependencies"]
    assert "h11>=0.16,<0.17" in pinned  # the range the hooks are known good in
    assert h11.__version__.startswith("0.16.")


@pytest.mark.parametrize("moved", ["reader", "chunked", "buffer", "picker"])
def test_an_h11_whose_internals_moved_fails_loudly(moved: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from h11._readers import READERS
    from h11._receivebuffer import ReceiveBuffer

    if moved == "reader":
        monkeypatch.setitem(READERS, (h11.CLIENT, h11.IDLE), lambda buf: None)
    elif moved == "chunked":
        monkeypatch.setitem(READERS, h11.SEND_BODY, {"content-length": object})
    elif moved == "buffer":
        monkeypatch.delattr(ReceiveBuffer, "maybe_extract_next_line")
    else:  # the reader picked elsewhere: the hook exists but is never called
        monkeypatch.setattr(strict.StrictH11, "_get_io_object", h11.Connection._get_io_object)
    with pytest.raises(ImportError, match="internals service.http.strict hooks moved"):
        strict.check_hooks()
