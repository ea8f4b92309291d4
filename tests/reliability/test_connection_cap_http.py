"""A flood of idle connections cannot exhaust the server (`http.max_connections`,
`service.http.head_limits`), on a real uvicorn server driven by raw sockets, with either HTTP
parser: past the cap, a new connection is answered 503 (the JSON-RPC error body, `Retry-After`)
and closed at once, before it sends a byte; the connections already open are kept; once one of
them closes, a new one is served. Before, every connection was kept until its 60 s arrival
deadline, so a client opening sockets without end used every file descriptor the server may open
(P1 s81); the excess ones here then waited for an answer that never came."""

from __future__ import annotations

import contextlib
import select
import time
from collections.abc import Iterator

import pytest

from tests.reliability.fronts import WAIT, Raw, ServerThread, sample_settings

CAP = 20
EXTRA = 10


@pytest.fixture(scope="module", params=["httptools", "h11"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    configured = sample_settings(
        tmp_path_factory.mktemp("cap"),
        # the idle connections stay open for the whole test, however slow the machine
        http={"max_connections": CAP, "parser": request.param, "request_read_seconds": 3600},
    )
    with ServerThread(configured) as running:
        yield running


def test_connections_past_the_cap_are_503_and_closed(server: ServerThread) -> None:
    idle = [Raw(server.port) for _ in range(CAP)]  # never send a byte
    try:
        for _ in range(EXTRA):  # accepted after the idle ones (in order): each one past the cap
            with Raw(server.port) as raw:
                answer = raw.response()
                assert answer.status == 503 and answer.closed, answer
                assert answer.json()["error"]["code"] == -32600 and answer.headers["retry-after"] == "1"
                assert raw.sock.recv(1) == b"", "the connection stays open"
        readable, _, _ = select.select([raw.sock for raw in idle], [], [], 0)
        assert readable == [], "a connection within the cap was answered or closed"
        idle.pop().sock.close()
        deadline = time.monotonic() + WAIT
        while True:  # the server sees the close when it reads the end: until then, still 503
            with Raw(server.port) as raw, contextlib.suppress(ConnectionError):  # a 503's close may reset
                raw.get("/healthz")
                if raw.response().status == 200:
                    break
            assert time.monotonic() < deadline, "no connection was served after one closed"
        for raw in idle:  # still served: the cap refuses new connections, it does not cut old ones
            raw.get("/healthz")
            assert raw.response().status == 200
    finally:
        for raw in idle:
            raw.sock.close()
