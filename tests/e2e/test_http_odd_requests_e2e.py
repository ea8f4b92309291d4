"""Odd request shapes the two parsers answered differently (P7 s87), raw sockets on a real server,
both parsers: each is 400, a JSON-RPC -32600 body naming the shape, and the connection closed
(`service.http.strict`). Before, h11 joined a folded header line, kept one of two equal
Content-Length fields, dropped a chunk extension with a control character unread (and took a
chunk size followed by a space), kept a control character in a header value, accepted lines
ended by LF alone and passed `get` on (405); httptools refused all of these, but served HTTP/0.9's
`GET /healthz` an HTTP/1.1 200, and both waited (408 at the deadline) on the request line alone.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import e2e

PING = b'{"jsonrpc":"2.0","id":3,"method":"ping"}'
MCP = "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"


def _cases(host: str) -> list[tuple[bytes, str]]:
    """Each odd request (raw bytes) and the words of its refusal."""
    chunked = f"POST /mcp HTTP/1.1\r\nHost: {host}\r\n{MCP}Transfer-Encoding: chunked\r\n\r\n".encode()
    posted = f"POST /mcp HTTP/1.1\r\nHost: {host}\r\n{MCP}"
    return [
        (f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nX-A: one\r\n two\r\n\r\n".encode(), "obsolete line folding"),
        (f"{posted}X-A: one\r\n\ttwo\r\nContent-Length: {len(PING)}\r\n\r\n".encode() + PING, "line folding"),
        (
            f"{posted}Content-Length: {len(PING)}\r\nContent-Length: {len(PING)}\r\n\r\n".encode() + PING,
            "Content-Length",
        ),
        (f"{posted}Content-Length: {len(PING)}, {len(PING)}\r\n\r\n".encode() + PING, "Content-Length"),
        (chunked + f"{len(PING):x};a=\x01b\r\n".encode() + PING + b"\r\n0\r\n\r\n", "chunk extension"),
        (chunked + f"{len(PING):x};a=b\x7f\r\n".encode() + PING + b"\r\n0\r\n\r\n", "chunk extension"),
        (chunked + f"{len(PING):x}\n".encode() + PING + b"\r\n0\r\n\r\n", "LF without CR"),
        (chunked + f"{len(PING):x} \r\n".encode() + PING + b"\r\n0\r\n\r\n", "chunk-size line"),
        (f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nX-A: a\x01b\r\n\r\n".encode(), "control character"),
        (f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nX-A: a\x7fb\r\n\r\n".encode(), "control character"),
        (f"GET /healthz HTTP/1.1\nHost: {host}\n\n".encode(), "LF without CR"),
        (f"GET /healthz HTTP/1.1\r\nHost: {host}\n\r\n".encode(), "LF without CR"),
        (f"get /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n".encode(), "methods are case-sensitive"),
        (
            f"post /mcp HTTP/1.1\r\nHost: {host}\r\n{MCP}Content-Length: {len(PING)}\r\n\r\n".encode() + PING,
            "case-sensitive",
        ),
        (b"GET /healthz\r\n\r\n", "no HTTP version"),
        (f"GET /healthz\r\nHost: {host}\r\n\r\n".encode(), "no HTTP version"),
        (b"GET /healthz\r\n", "no HTTP version"),  # (the line alone: answered, not left to the 408)
    ]


async def _answers(port: int, raw: bytes) -> bytes:
    """All the server answers to `raw` on one connection, read to its close."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(raw)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), 60)
    finally:
        writer.close()


def _refusal(answer: bytes) -> str:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ") and b"connection: close" in head.lower(), answer
    error = json.loads(body)["error"]
    assert error["code"] == -32600, answer
    return str(error["message"])


@pytest.mark.parametrize("parser", ["httptools", "h11"])
async def test_odd_requests_are_400_and_closed_with_either_parser(make_vault: Callable[..., Path], parser: str) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n"}), http={"parser": parser}, index={"watch": False}) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        here = f"127.0.0.1:{port}"
        for raw, words in _cases(here):
            answer = await _answers(port, raw)
            assert words in _refusal(answer), (raw, answer)
        # pipelined behind a good request: that one answered, the odd one refused, nothing after it read
        good = f"GET /healthz HTTP/1.1\r\nHost: {here}\r\n\r\n".encode()
        for raw, words in _cases(here):
            answer = await _answers(port, good + raw + good)
            first, _, rest = answer.partition(b"HTTP/1.1 400 ")
            assert first.startswith(b"HTTP/1.1 200 ") and first.count(b"HTTP/1.1 ") == 1, (raw, answer)
            assert words in _refusal(b"HTTP/1.1 400 " + rest), (raw, answer)
        # what stays served: a quoted chunk extension, HTTP/1.0, a header value with a tab inside
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}).encode()
        ext = f'{len(body):x};a="b c";d=e\r\n'.encode()
        chunked = f"POST /mcp HTTP/1.1\r\nHost: {here}\r\n{MCP}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        answer = await _answers(port, chunked.encode() + ext + body + b"\r\n0\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 200 ") and b'"protocolVersion":"2025-06-18"' in answer, answer
        answer = await _answers(port, b"GET /healthz HTTP/1.0\r\nX-A: one\ttwo\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 200 ") and b'"status":"ok"' in answer, answer
        # empty lines before a request line are skipped (RFC 9112 2.2; h11 refused them, llhttp skipped them)
        answer = await _answers(
            port, f"\r\n\r\nGET /healthz HTTP/1.1\r\nHost: {here}\r\nConnection: close\r\n\r\n".encode()
        )
        assert answer.startswith(b"HTTP/1.1 200 ") and b'"status":"ok"' in answer, answer


@pytest.mark.parametrize("parser", ["httptools", "h11"])
async def test_requests_the_parsers_answered_differently_get_one_answer(
    make_vault: Callable[..., Path], parser: str
) -> None:
    """(s88) An unknown method is 501 (RFC 9110 9.1; h11 passed it on to a 404 or 405, llhttp 400),
    a version other than 1.0 and 1.1 is 505 (h11 served them all, llhttp served 2.0), a request
    line with two spaces between its parts is 400 (llhttp served it); each closes the connection,
    sent whole, behind a good request, or a byte at a time."""
    async with e2e(make_vault({"Home.md": "# Home\n"}), http={"parser": parser}, index={"watch": False}) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        host = f"Host: 127.0.0.1:{port}\r\n"
        good = f"GET /healthz HTTP/1.1\r\n{host}\r\n".encode()
        cases = [
            (f"FOO / HTTP/1.1\r\n{host}\r\n", 501, "not one this server knows"),
            (f"FOO /mcp HTTP/1.1\r\n{host}{MCP}Content-Length: {len(PING)}\r\n\r\n{PING.decode()}", 501, "knows"),
            (f"DESCRIBE /healthz HTTP/1.1\r\n{host}\r\n", 501, "not one this server knows"),
            (f"GET /healthz HTTP/1.2\r\n{host}\r\n", 505, "not 1.0 or 1.1"),
            (f"GET /healthz HTTP/2.0\r\n{host}\r\n", 505, "not 1.0 or 1.1"),
            (f"GET /healthz HTTP/3.0\r\n{host}\r\n", 505, "not 1.0 or 1.1"),
            (f"GET  /healthz HTTP/1.1\r\n{host}\r\n", 400, "single spaces"),
            (f"GET /healthz  HTTP/1.1\r\n{host}\r\n", 400, "single spaces"),
        ]
        for text, status, words in cases:
            raw = text.encode()
            for sent, before in ((raw, b""), (good + raw + good, b"HTTP/1.1 200 "), ([*raw], b"")):
                answer = await _sent(port, sent)
                assert answer.startswith(before), (raw, sent, answer)
                refusal = answer[answer.find(f"HTTP/1.1 {status} ".encode()) :]  # (after the good one's answer)
                head, _, body = refusal.partition(b"\r\n\r\n")
                assert head.startswith(f"HTTP/1.1 {status} ".encode()) and b"connection: close" in head, (raw, answer)
                assert words in json.loads(body)["error"]["message"], (raw, answer)
        # a chunk extension longer than the head's limit, in pieces: 400 (llhttp read it without end,
        # h11 answered it 431 as a head); one shorter is read
        chunked = f"POST /mcp HTTP/1.1\r\n{host}{MCP}Transfer-Encoding: chunked\r\n\r\n{len(PING):x};a=".encode()
        for size, words in ((1_000_000, b"chunk-size line"), (20_000, b"Missing session ID")):  # (read: the SDK's)
            parts = [chunked, *[b"b" * 10_000] * (size // 10_000), b"\r\n" + PING + b"\r\n0\r\n\r\n"]
            answer = await _pieces(port, parts)  # (1 MB: over the limit whatever reads the pieces coalesce in)
            assert answer.startswith(b"HTTP/1.1 400 ") and words in answer, (size, answer[:300])
        # what stays: a method the server knows but the path does not take (405), HTTP/1.0
        answer = await _answers(port, f"PUT /healthz HTTP/1.1\r\n{host}Connection: close\r\n\r\n".encode())
        assert answer.startswith(b"HTTP/1.1 405 "), answer


async def _pieces(port: int, parts: list[bytes]) -> bytes:
    """What the server answers first to `parts`, each sent once the one before is taken."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for part in parts:
            writer.write(part)
            await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        return head + await asyncio.wait_for(reader.readexactly(length), 60)
    except ConnectionError:
        return await asyncio.wait_for(reader.read(), 60)
    finally:
        writer.close()


async def _sent(port: int, raw: bytes | list[int]) -> bytes:
    """All the server answers to `raw` (a list: its bytes sent one at a time), read to its close."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for piece in [bytes([b]) for b in raw] if isinstance(raw, list) else [raw]:
            if writer.is_closing() or reader.at_eof():
                break
            writer.write(piece)
            await writer.drain()
        return await asyncio.wait_for(reader.read(), 60)
    except ConnectionError:
        return await asyncio.wait_for(reader.read(), 60)
    finally:
        writer.close()


@pytest.mark.parametrize("parser", ["httptools", "h11"])
async def test_a_body_arriving_after_its_early_answer_leaves_the_connection_closable(
    make_vault: Callable[..., Path], parser: str
) -> None:
    """(P7 s87 hostile pass) A POST answered before its body is read (406: no Accept) whose body,
    over uvicorn's 64 KiB high-water mark, arrives after the answer: with httptools the body's bytes
    cancelled the keep-alive timer and nothing armed it again, so the connection stayed open for
    good; now it closes at the keep-alive timeout (h11: the 408 deadline, its body never read whole)."""
    settings = {"parser": parser, "request_read_seconds": 5}
    async with e2e(make_vault({"Home.md": "# Home\n"}), http=settings, index={"watch": False}) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        body = b"x" * 200_000
        head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {len(body)}\r\n\r\n"
        answer = await _answers(port, head.encode() + body)  # (read to the server's close, bounded)
        assert answer.startswith(b"HTTP/1.1 406 "), answer[:200]
