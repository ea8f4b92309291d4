"""The request deadline (`service.http.head_limits`) and a request sent behind an answer still
under way on the same connection (HTTP/1.1 pipelining), on a real uvicorn server driven by raw
sockets: the session's SSE stream is open, then a second request follows on its connection, its
head or its body unfinished. Before, the deadline wrote its 408 response into the middle of the
stream's chunked body and closed the connection under the stream (uvicorn does not even read a
pipelined request's body while the earlier answer runs: the client was not slow). Now the stream
goes on; the deadline waits for the earlier answer to end."""

from __future__ import annotations

import pytest

from tests.reliability.fronts import Raw, ServerThread
from tests.reliability.test_request_deadline_http import DEADLINE_S, server

__all__ = ["server"]

BEHIND = {
    "a head never finished": b"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: a",
    "a body short of its length": (
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        b"accept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n" + b'{"jsonrpc"'
    ),
}


def _drain(raw: Raw, wait: float) -> tuple[bytes, bool]:
    """What arrives within `wait` seconds of quiet, and whether the connection closed."""
    raw.sock.settimeout(wait)
    got = b""
    try:
        while chunk := raw.sock.recv(65536):
            got += chunk
    except TimeoutError:
        return got, False
    return got, True


@pytest.mark.parametrize("sent", sorted(BEHIND))
def test_a_request_behind_an_open_stream_neither_cuts_nor_corrupts_it(server: ServerThread, sent: str) -> None:
    headers = {k: v for k, v in server.session().items() if k != "content-type"}
    with Raw(server.port) as raw:
        raw.get("/mcp", {**headers, "accept": "text/event-stream"})
        head, closed = _drain(raw, 0.5)
        assert head.startswith(b"HTTP/1.1 200") and not closed, head
        raw.sock.sendall(BEHIND[sent])
        later, closed = _drain(raw, DEADLINE_S * 3)
        assert b"408" not in later and not closed, (later, closed)
