"""A flood of idle connections cannot exhaust the server, nor keep real clients out
(`http.max_connections`, `service.http.head_limits`), on a real uvicorn server driven by raw
sockets and the SDK client, with either HTTP parser. At the cap, a new connection makes room by
closing the connection idle longest (opened and never sent a byte, or answered and waiting for a
next request); a connection with a request in flight (a body still arriving, an SSE stream) is
never closed for it; when every connection is in flight, the new one is answered 503 (the JSON-RPC
error body, `Retry-After`) and closed at once, before it sends a byte.

Before the cap (P1 s81), every connection was kept until its 60 s arrival deadline, so a client
opening sockets without end used every file descriptor the server may open. With the cap alone
(920e3409), sockets opened and never used kept every real client at 503 until that deadline.
Every socket of the cap's test stays open until it closes them all, so the server's count is the
test's: nothing closed by the client is still counted when a new connection arrives (the test
before it leaves only idle connections, which make room first).

A connection whose request head is still arriving (a slowloris) is the next to make room when
none is idle: answered 503 and closed, the newcomer kept.

The same server also closes a connection whose answer its client stops reading
(`http.unread_seconds`, 2 s here)."""

from __future__ import annotations

import asyncio
import json
import select
import socket
import struct
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.reliability.fronts import INIT, INITIALIZED, MCP_HEADERS, WAIT, Raw, ServerThread, sample_settings

CAP = 20
ANSWERED = 4  # requests of the full house answered, then idle: room for the SDK client's connections
BODY = json.dumps(INIT).encode()
TCP_CLOSE = 7  # tcp_info.tcpi_state once the server reset the connection (linux/tcp_states.h)
ESTABLISHED, CLOSE_WAIT = 1, 8  # (the same states): a connection the server still counts


@pytest.fixture(scope="module", params=["httptools", "h11"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    base = tmp_path_factory.mktemp("cap")
    configured = sample_settings(
        base,
        # the unfinished requests stay unfinished for the whole test, however slow the machine
        http={"max_connections": CAP, "parser": request.param, "request_read_seconds": 3600, "unread_seconds": 2},
    )
    (base / "vault" / "Big.md").write_text("# Big\n\n" + "unread words here\n" * 20_000)  # 360 KB
    with ServerThread(configured) as running:
        yield running


def closed(sock: socket.socket, wait: float = 0) -> bool:
    """Whether the server has closed `sock` (within `wait` seconds), reading what it sent before."""
    deadline = time.monotonic() + wait
    while select.select([sock], [], [], max(0.0, deadline - time.monotonic()))[0]:
        try:
            if not sock.recv(65536):
                return True
        except ConnectionError:
            return True
    return False


def head_read(raw: Raw) -> bytes:
    """The head of an answer the server has begun on `raw` (its first bytes, to the blank line)."""
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        chunk = raw.sock.recv(1)
        assert chunk, f"closed after {head!r}"
        head += chunk
    return head


def in_flight(port: int) -> Raw:
    """A connection whose request is under way: its head read by the server (it asked for the
    body: 100 Continue), half of its body sent."""
    raw = Raw(port)
    raw.send(raw.head("POST", "/mcp", BODY, {**MCP_HEADERS, "expect": "100-continue"}))
    assert head_read(raw).startswith(b"HTTP/1.1 100 ")
    raw.sock.sendall(BODY[: len(BODY) // 2])
    return raw


def streaming(port: int) -> Raw:
    """A connection holding a session's GET SSE stream open (the session opened on it first)."""
    raw = Raw(port)
    raw.post("/mcp", BODY, MCP_HEADERS)
    opened = raw.response()
    assert opened.status == 200, opened
    headers = {**MCP_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    raw.post("/mcp", json.dumps(INITIALIZED).encode(), headers)
    assert raw.response().status == 202
    raw.get("/mcp", {"accept": "text/event-stream", **{k: v for k, v in headers.items() if k != "accept"}})
    assert b"text/event-stream" in head_read(raw)
    return raw


async def sdk_call(url: str) -> dict[str, object]:
    async with create_mcp_http_client() as http, Client(streamable_http_client(url, http_client=http)) as client:
        result = await client.call_tool("read_note", {"path": "Welcome"})
    assert not result.is_error and result.structured_content is not None, result
    return result.structured_content


def test_an_answer_the_client_stops_reading_closes_its_connection(server: ServerThread) -> None:
    """A client that reads none of its answers (here 16 pipelined read_note answers of ~0.4 MB,
    more than the socket buffers hold): the connection is aborted once no byte was taken for
    `http.unread_seconds`. Before, it was held, with the answers' bytes, while the socket lasted."""
    headers = server.session()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.port))
    try:
        for n in range(16):
            call = {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": "read_note", "arguments": {"path": "Big"}},
            }
            body = json.dumps(call).encode()
            head = ["POST /mcp HTTP/1.1", f"host: 127.0.0.1:{server.port}", f"content-length: {len(body)}"]
            sock.sendall(("\r\n".join(head + [f"{k}: {v}" for k, v in headers.items()]) + "\r\n\r\n").encode() + body)
        deadline = time.monotonic() + WAIT
        while struct.unpack("B", sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1))[0] != TCP_CLOSE:
            assert time.monotonic() < deadline, "a connection whose answers are never read is kept"
            time.sleep(0.05)
        assert server.alive()
    finally:
        sock.close()


def test_idle_connections_make_room_busy_ones_are_never_cut(server: ServerThread) -> None:
    opened: list[Raw] = []
    try:
        stream = streaming(server.port)
        busy = [stream] + [in_flight(server.port) for _ in range(CAP - 1)]
        opened += busy
        # every connection has a request in flight: a new one is refused, none of them is cut
        for _ in range(3):
            with Raw(server.port) as raw:
                answer = raw.response()
                assert answer.status == 503 and answer.closed, answer
                assert answer.json()["error"]["code"] == -32600 and answer.headers["retry-after"] == "1"
                assert closed(raw.sock, WAIT), "the refused connection stays open"
        assert not any(closed(raw.sock) for raw in busy), "a connection with a request in flight was closed"

        # some requests end (answered, then idle): sockets that never send a byte take their place
        for raw in busy[-ANSWERED:]:
            raw.sock.sendall(BODY[len(BODY) // 2 :])
            assert raw.response().status == 200
        busy, answered = busy[:-ANSWERED], busy[-ANSWERED:]
        idle = [Raw(server.port) for _ in range(ANSWERED)]
        opened += idle
        for raw in answered:  # room made by closing the answered ones (or their keep-alive ended)
            assert closed(raw.sock, WAIT), "an answered idle connection was kept at the cap"
        assert not any(closed(raw.sock) for raw in idle), "a connection within the cap was closed"

        # the house is full of idle sockets and unfinished requests: a real client is served
        assert asyncio.run(sdk_call(server.url))["path"] == "Welcome.md"
        gone = [closed(raw.sock) for raw in idle]
        assert gone[0] and gone == sorted(gone, reverse=True), f"not the idle ones, oldest first: {gone}"
        assert not any(closed(raw.sock) for raw in busy), "a connection with a request in flight was closed"
        for raw in busy[1:]:  # still served: its body's end is read and answered
            raw.sock.sendall(BODY[len(BODY) // 2 :])
            assert raw.response().status == 200
    finally:
        for raw in opened:
            raw.sock.close()


def server_side(port: int) -> dict[int, tuple[int, int]]:
    """The server's end of each TCP connection to 127.0.0.1:`port` (/proc/net/tcp), by the client's
    port: its state (linux/tcp_states.h) and the bytes it holds that the server has not read."""
    found = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, remote, state, queues = line.split()[1:5]
        if int(local.split(":")[1], 16) == port and state != "0A":  # not the listening socket
            found[int(remote.split(":")[1], 16)] = (int(state, 16), int(queues.split(":")[1], 16))
    return found


def settled(port: int, condition: Callable[[dict[int, tuple[int, int]]], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition(server_side(port)):
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_a_head_still_arriving_makes_room_with_a_503(server: ServerThread) -> None:
    """At the cap with no idle connection, a new one closes the connection whose request head has
    been arriving longest (answered 503, the JSON-RPC error body) and is served; a connection with a
    request in flight is not closed for it. (Unit-tested in tests/unit/http/test_connection_room.py.)"""
    # every connection a test before closed is gone from the server's count (none left half closed)
    settled(server.port, lambda ends: not any(s in (ESTABLISHED, CLOSE_WAIT) for s, _ in ends.values()), "kept")
    opened: list[Raw] = []
    try:
        busy = [in_flight(server.port) for _ in range(CAP - 1)]
        opened += busy
        slow = Raw(server.port)
        opened.append(slow)
        slow.sock.sendall(f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{server.port}\r\ncontent-type: app".encode())
        slow.delivered()  # the server read the head's beginning: its connection is a head arriving
        client_port = slow.sock.getsockname()[1]
        settled(server.port, lambda ends: ends.get(client_port, (0, 1))[1] == 0, "the head was not read")
        with Raw(server.port) as newcomer:
            answer = slow.response()
            assert answer.status == 503 and answer.closed, answer
            assert answer.json()["error"]["code"] == -32600 and answer.headers["retry-after"] == "1"
            assert closed(slow.sock, WAIT), "the connection whose head was arriving stays open"
            newcomer.get("/healthz")
            assert newcomer.response().status == 200
        assert not any(closed(raw.sock) for raw in busy), "a connection with a request in flight was closed"
    finally:
        for raw in opened:
            raw.sock.close()
