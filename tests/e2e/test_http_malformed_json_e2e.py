"""Requests the HTTP parser itself cannot read (P1 s80 item 4): uvicorn answered them a plain-text
400 ("Invalid HTTP request received."), the one answer of the server without a JSON-RPC error
body. Both parsers (httptools, h11) now answer 400 with the same JSON body every other refusal
has (id null, -32600) and close the connection; the server serves the next client. A request
framed both by Content-Length and Transfer-Encoding too (h11 answered it and kept the connection
open; `service.http.edge`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import e2e
from tests.reliability.fronts import Raw

PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
MALFORMED = {
    "request line": b"NOT A REQUEST LINE AT ALL\r\n\r\n",
    "header without a colon": b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n",
    "space before a header's colon": b"POST /mcp HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n",
    "bad chunk size": b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    # RFC 9112 6.1: an error, and the connection closed after the answer (h11 answered the chunked
    # body and kept the connection: a proxy framing by Content-Length would read a second request)
    "Content-Length and Transfer-Encoding": (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"28\r\n" + PING + b"\r\n0\r\n\r\n"
    ),
    # httptools read it as chunked and took the gzip-coded bytes for the body (h11 refused it)
    "a transfer coding besides chunked": (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
        b"28\r\n" + PING + b"\r\n0\r\n\r\n"
    ),
    # the same coding in two fields: one list (RFC 9110 5.3), not the last field alone
    "a transfer coding besides chunked, in a field of its own": (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"28\r\n" + PING + b"\r\n0\r\n\r\n"
    ),
}


async def _exchange(port: int, data: bytes) -> tuple[int, dict[str, str], bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 60)  # the server closes the connection
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split(" ")[1]), fields, body


@pytest.mark.parametrize("parser", ["httptools", "h11"])
async def test_what_the_parser_cannot_read_gets_a_json_400(make_vault: Callable[..., Path], parser: str) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n"}), http={"parser": parser}, index={"watch": False}) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        for name, data in MALFORMED.items():
            status, fields, body = await _exchange(port, data)
            assert status == 400, (name, body)
            assert fields["content-type"] == "application/json", (name, fields)
            assert fields.get("connection") == "close", (name, fields)  # closed now, not at keep-alive's end
            error = json.loads(body)
            assert error["id"] is None and error["error"]["code"] == -32600, (name, error)
        head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
        head += f"Accept: application/json, text/event-stream\r\nContent-Length: {len(PING)}\r\n\r\n"
        status, _, _ = await _exchange(port, head.encode() + PING)
        assert status in (200, 400)  # answered by the MCP front (a ping without a session), not the parser


def _head_refused(port: int, filler: int) -> tuple[int, bool, dict[str, object]]:
    """A POST whose head holds `filler` bytes of one header field, from a thread (blocking socket,
    sending stops once the server has answered): its answer's status, whether it closes, its body."""
    with Raw(port) as raw:
        raw.post("/mcp", PING, {"x-filler": "a" * filler})
        answer = raw.response()
    return answer.status, answer.closed, answer.json()


@pytest.mark.parametrize("parser", ["httptools", "h11"])
async def test_a_head_over_the_limit_is_431_with_either_parser(make_vault: Callable[..., Path], parser: str) -> None:
    """h11 answered a head over `http.max_header_bytes` 400 ("malformed") when it was still
    incomplete past its bound, and passed one a little over it that came in one read (an answer of
    the MCP front): both are 431 now, as httptools answers them."""
    async with e2e(make_vault({"Home.md": "# Home\n"}), http={"parser": parser}, index={"watch": False}) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        for filler in (64 * 1024, 1024 * 1024):
            status, closed, body = await asyncio.to_thread(_head_refused, port, filler)
            assert (status, closed) == (431, True), (filler, body)
            assert body["id"] is None and "over 65536 bytes" in body["error"]["message"], body
