"""An attacker's pass over the HTTP front (P4 s79 item 2), raw HTTP/1.1 against a real uvicorn
server with bearer tokens: every odd request gets a clear HTTP answer with a JSON body, and the
owner's session goes on answering after it.

- A header field that carries one value, sent twice (Host at all; Origin, Authorization,
  Content-Type, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Name with two values): 400. The edge, the
  SDK and the fast paths read the first, so two Authorization fields passed with the first
  token, two Host or Origin fields with the first one checked (`service.http.edge`).
- GET and DELETE on a session with another principal's token: 404, the session unharmed.
- `Last-Event-ID` of any shape on the owner's GET: the stream opens (no event store, nothing to
  replay); without a session: 400.
- A body over the limit (announced or chunked): 413 on a connection that stays usable; a body
  shorter than announced, or chunked without its end: 408 when the arrival deadline passes.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, e2e
from tests.keys import SECRET, claims, hs

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
PING = b'{"jsonrpc":"2.0","id":7,"method":"ping"}'
READ = json.dumps(
    {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "read_note", "arguments": {"path": "Home"}}}
).encode()
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
MODERN_READ = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "tools/call",
        "params": {"name": "read_note", "arguments": {"path": "Home"}, "_meta": MODERN_META},
    }
).encode()
JSON = [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")]
Headers = list[tuple[str, str]]


class Server:
    def __init__(self, url: str, harness: Harness) -> None:
        self.port = int(url.split(":")[2].split("/")[0])
        self.path = "/" + url.split("/", 3)[3]
        self.harness = harness
        self.alice = [("Authorization", f"Bearer {hs(claims(aud='vaultgate', sub='alice'))}")]
        self.mallory = [("Authorization", f"Bearer {hs(claims(aud='vaultgate', sub='mallory'))}")]
        self.session: Headers = []

    def request(self, method: str, headers: Headers, body: bytes | None = None, *, host: str = "127.0.0.1") -> bytes:
        fields = [("Host", host), *headers]
        if body is not None and not any(k.lower() in ("content-length", "transfer-encoding") for k, _ in headers):
            fields.append(("Content-Length", str(len(body))))
        head = f"{method} {self.path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields) + "\r\n"
        return head.encode("latin-1") + (body or b"")

    async def exchange(self, *requests: bytes) -> list[tuple[int, dict[str, str], bytes]]:
        """Each request in turn on one connection, each answer read whole (by its length, else
        its head only: an SSE stream is left open)."""
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        answers = []
        try:
            for data in requests:
                writer.write(data)
                await writer.drain()
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
                lines = head.decode("latin-1").split("\r\n")
                fields = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
                size = int(fields.get("content-length", "0"))
                body = await asyncio.wait_for(reader.readexactly(size), 60) if size else b""
                answers.append((int(lines[0].split(" ")[1]), fields, body))
        finally:
            writer.close()
        return answers

    async def one(self, data: bytes) -> tuple[int, dict[str, str], bytes]:
        return (await self.exchange(data))[0]

    async def read_as_alice(self) -> None:
        """The owner's session answers a tools/call."""
        status, _, body = await self.one(self.request("POST", self.session + self.alice, READ))
        assert status == 200 and json.loads(body)["result"]["structuredContent"]["path"] == "Home.md"


@pytest.fixture
async def server(make_vault: Callable[..., Path]) -> AsyncIterator[Server]:
    root = make_vault({"Home.md": "# Home\n"})
    auth = {"mode": "jwt", "jwt_secret": SECRET, "audience": "vaultgate"}
    http = {"max_request_body_bytes": 65536, "request_read_seconds": 1, "sse_grace_seconds": 5}
    async with e2e(root, auth=auth, http=http, index={"watch": False}) as (url, harness):
        s = Server(url, harness)
        status, fields, _ = await s.one(s.request("POST", JSON + s.alice, json.dumps(INIT).encode()))
        assert status == 200
        s.session = [*JSON, ("Mcp-Session-Id", fields["mcp-session-id"]), ("MCP-Protocol-Version", "2025-06-18")]
        note = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
        assert (await s.one(s.request("POST", s.session + s.alice, note)))[0] == 202
        yield s


def _refused(answer: tuple[int, dict[str, str], bytes], status: int) -> str:
    got, fields, body = answer
    assert got == status, (got, body)
    assert fields["content-type"] == "application/json"
    error = json.loads(body)
    assert error["jsonrpc"] == "2.0" and error["id"] is None and error["error"]["code"] == -32600
    return str(error["error"]["message"])


TWICE: list[tuple[str, Callable[[Server], tuple[Headers, bytes]]]] = [
    ("host twice", lambda s: ([*s.session, *s.alice, ("Host", "evil.example")], READ)),
    ("host twice the same", lambda s: ([*s.session, *s.alice, ("Host", "127.0.0.1")], READ)),
    (
        "origin twice",
        lambda s: ([*s.session, *s.alice, ("Origin", "http://127.0.0.1"), ("Origin", "http://e.x")], READ),
    ),
    ("authorization alice, mallory", lambda s: ([*s.session, *s.alice, *s.mallory], READ)),
    ("authorization alice, forged", lambda s: ([*s.session, *s.alice, ("Authorization", "Bearer a.b.c")], READ)),
    ("content-type twice", lambda s: ([*s.session, *s.alice, ("Content-Type", "text/plain")], READ)),
    ("mcp-session-id twice", lambda s: ([*s.session, *s.alice, ("Mcp-Session-Id", "other")], READ)),
    ("mcp-protocol-version twice", lambda s: ([*s.session, *s.alice, ("MCP-Protocol-Version", "2025-03-26")], READ)),
    (
        "mcp-name twice (2026-07-28)",
        lambda s: (
            [
                *JSON,
                *s.alice,
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "read_note"),
                ("Mcp-Name", "delete_note"),
            ],
            MODERN_READ,
        ),
    ),
]


@pytest.mark.parametrize("case", [c for _, c in TWICE], ids=[name for name, _ in TWICE])
async def test_a_single_value_header_field_sent_twice_is_refused(
    server: Server, case: Callable[[Server], tuple[Headers, bytes]]
) -> None:
    headers, body = case(server)
    # The refusal is a whole answer: the connection serves the next request; but Host twice, which
    # h11's parser refuses and closes, is closed with httptools too (s89: one answer either way).
    if any(name.lower() == "host" for name, _ in headers):  # (`request` adds its own Host)
        refused = await server.one(server.request("POST", headers, body))
        assert refused[1].get("connection") == "close"
        after = await server.one(server.request("POST", server.session + server.alice, PING))
    else:
        refused, after = await server.exchange(
            server.request("POST", headers, body), server.request("POST", server.session + server.alice, PING)
        )
    assert "header field is sent more than once" in _refused(refused, 400)
    assert after[0] == 200
    await server.read_as_alice()


async def test_get_and_delete_with_another_principals_token_find_no_session(server: Server) -> None:
    stream = [("Accept", "text/event-stream"), *server.session[2:]]
    for method, headers in (("GET", stream), ("DELETE", server.session[2:])):
        status, _, body = await server.one(server.request(method, headers + server.mallory))
        assert status == 404 and json.loads(body)["error"]["message"] == "Session not found"
    await server.read_as_alice()


@pytest.mark.parametrize("resume", ["9" * 30000, "../../etc/passwd", "-1", "0;DROP TABLE event_log", "\u00e9t\u00e9"])
async def test_a_hostile_last_event_id_opens_the_owners_stream(server: Server, resume: str) -> None:
    stream = [("Accept", "text/event-stream"), *server.session[2:], *server.alice]
    status, fields, _ = await server.one(server.request("GET", [*stream, ("Last-Event-ID", resume)]))
    assert status == 200 and fields["content-type"].startswith("text/event-stream")
    without = [("Accept", "text/event-stream"), *server.alice, ("Last-Event-ID", resume)]
    assert "Missing session ID" in json.loads((await server.one(server.request("GET", without)))[2])["error"]["message"]
    await server.read_as_alice()


async def test_bodies_over_the_limit_are_413_and_the_connection_serves_on(server: Server) -> None:
    auth = server.session + server.alice
    announced = server.request("POST", [*auth, ("Content-Length", "70000")], b"{" * 70000)
    chunk = b"8000\r\n" + b"a" * 0x8000 + b"\r\n"
    chunked = server.request("POST", [*auth, ("Transfer-Encoding", "chunked")]) + chunk * 3 + b"0\r\n\r\n"
    for body in (announced, chunked):
        refused, after = await server.exchange(body, server.request("POST", auth, PING))
        assert "over the limit of 65536 bytes" in _refused(refused, 413)
        assert after[0] == 200


@pytest.mark.parametrize("cut", ["shorter than announced", "chunked without its end"])
async def test_a_body_that_never_ends_is_408(server: Server, cut: str) -> None:
    auth = server.session + server.alice
    if cut == "shorter than announced":
        data = server.request("POST", [*auth, ("Content-Length", str(len(PING) + 10))], PING)
    else:
        data = server.request("POST", [*auth, ("Transfer-Encoding", "chunked")]) + b'5\r\n{"jso\r\n'
    assert "did not arrive whole within 1 seconds" in _refused(await server.one(data), 408)
    await server.read_as_alice()
