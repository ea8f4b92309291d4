"""A request must arrive whole within `http.request_read_seconds` (`service.http.head_limits`), on
a real uvicorn server driven by raw sockets, with either HTTP parser (`http.parser`: httptools,
h11): a head never finished, a body shorter than its
Content-Length, a chunked body that never ends and a connection that never sends a byte are
answered 408 and closed. Before, each held its connection for ever (uvicorn times out only a
connection idle between requests): 20,000 of them used every file descriptor the server may
open, and it served no one. A connection idle between two whole requests, and a call answered
after the deadline, are not cut by it. Under h11 there was no deadline at all before the setting."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.reliability.fronts import Raw, ServerThread, sample_settings

DEADLINE_S = 1.0


@pytest.fixture(scope="module", params=["httptools", "h11"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    configured = sample_settings(
        tmp_path_factory.mktemp("deadline"), http={"request_read_seconds": DEADLINE_S, "parser": request.param}
    )
    with ServerThread(configured) as running:
        yield running


PARTS = {
    "nothing sent": b"",
    "a head never finished": b"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: a",
    "a body short of its length": (
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        b"accept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n" + b'{"jsonrpc"'
    ),
    "a chunked body never ended": (
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        b'accept: application/json, text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"jso\r\n'
    ),
}


@pytest.mark.parametrize("sent", sorted(PARTS))
def test_a_request_not_whole_within_the_deadline_is_408_and_closed(server: ServerThread, sent: str) -> None:
    started = time.monotonic()
    with Raw(server.port) as raw:
        raw.sock.sendall(PARTS[sent])
        answer = raw.response()
        assert answer.status == 408 and answer.closed
        assert answer.json()["error"]["code"] == -32600
        assert raw.sock.recv(1) == b"", "the connection stays open"
    assert DEADLINE_S <= time.monotonic() - started < DEADLINE_S + 10
    with Raw(server.port) as raw:  # the others are served meanwhile and after
        raw.get("/healthz")
        assert raw.response().status == 200


def test_idle_between_requests_and_a_long_stream_are_not_cut(server: ServerThread) -> None:
    with Raw(server.port) as raw:
        raw.get("/healthz")
        assert raw.response().status == 200
        time.sleep(DEADLINE_S * 2)  # idle under uvicorn's keep-alive (5 s), past the read deadline
        raw.get("/healthz")
        assert raw.response().status == 200
    headers = {k: v for k, v in server.session().items() if k != "content-type"}
    with Raw(server.port) as raw:  # the session's stream for server messages: whole at once, then open
        raw.get("/mcp", {**headers, "accept": "text/event-stream"})
        raw.sock.settimeout(DEADLINE_S * 3)
        with pytest.raises(TimeoutError):  # neither a 408 nor the end of the stream: nothing comes
            while raw.sock.recv(65536):
                pass
