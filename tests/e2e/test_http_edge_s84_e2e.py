"""Two HTTP edge leftovers of s83 (P4 s84), raw sockets on a real server, both parsers:

- an `MCP-Protocol-Version` header naming no version served (garbage, empty, a future date) on
  a handshake-era message (`initialize`, a plain `tools/list`), a notification, a GET: 400 with
  `-32022` naming the header, its value and the versions served (`service.http.front`). The SDK
  answered the POSTs 400 `-32602` "params._meta must be an object carrying ... protocolVersion"
  and the GET 405. A 2026-07-28 envelope with such a header keeps the SDK's own answer.
- a request target in absolute form (`POST http://127.0.0.1:port/mcp`, RFC 9112 3.2.2) is served
  at its path by both parsers (h11 answered 404), and its host is checked as Host is: 421 for a
  host not allowed, in the target or in the Host header (`service.http.hosts`).
- (P5 s85) a path no route serves, any method, is a JSON 404 naming the path and the paths served
  (Starlette answered plain text "Not Found"), a method a plain route does not take a JSON 405
  with its `Allow`; /mcp's own answers (the SDK's JSON-RPC errors) are unchanged. A target that
  carries a fragment is 400 with either parser (httptools served the path before the `#`).
- (P6 s86) CONNECT is 405 with either parser (h11 answered 404 or 421, httptools a 400
  "malformed"), a target in the authority form on another method 400 with the same message. A
  whole request followed by the client's half-close is answered, then the connection closed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import e2e

ACCEPT = "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
SUPPORTED = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]


async def _exchange(port: int, head: str, body: bytes = b"") -> tuple[int, bytes]:
    """One request on its own connection (`Connection: close`): the status and the body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        length = f"Content-Length: {len(body)}\r\n" if body else ""
        writer.write(f"{head}Connection: close\r\n{length}\r\n".encode("latin-1") + body)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 60)
    finally:
        writer.close()
    status_line, _, rest = answer.partition(b"\r\n")
    fields, _, content = rest.partition(b"\r\n\r\n")
    if b"transfer-encoding: chunked" in fields.lower():  # (a plain JSON body is what every answer here has)
        size, _, chunk = content.partition(b"\r\n")
        content = chunk[: int(size, 16)]
    return int(status_line.split(b" ")[1]), content


def _post(target: str, host: str, version: str | None = None) -> str:
    header = f"MCP-Protocol-Version: {version}\r\n" if version is not None else ""
    return f"POST {target} HTTP/1.1\r\nHost: {host}\r\n{ACCEPT}{header}"


@pytest.mark.parametrize("parser", ["httptools", "h11"])
async def test_bad_version_header_and_absolute_targets(make_vault: Callable[..., Path], parser: str) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n"}), http={"parser": parser}, index={"watch": False}) as (url, _):
        port = int(url.split(":")[2].split("/")[0])
        here = f"127.0.0.1:{port}"
        for version in ("garbage", "", "2099-01-01"):
            for message in (INITIALIZE, TOOLS_LIST, {"jsonrpc": "2.0", "method": "notifications/initialized"}):
                status, body = await _exchange(port, _post("/mcp", here, version), json.dumps(message).encode())
                answer: dict[str, Any] = json.loads(body)
                assert status == 400, (version, message, answer)
                error = answer["error"]
                assert error["code"] == -32022 and answer["id"] == message.get("id"), (version, error)
                assert f"MCP-Protocol-Version header is {version!r}" in error["message"], error
                assert error["data"] == {"supported": SUPPORTED, "requested": version}, error
            status, body = await _exchange(
                port, f"GET /mcp HTTP/1.1\r\nHost: {here}\r\n{ACCEPT}MCP-Protocol-Version: {version}\r\n"
            )
            assert status == 400 and json.loads(body)["error"]["code"] == -32022, (version, body)
        # a 2026-07-28 envelope with a header that disagrees: the SDK's ladder answers, as before
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        enveloped = {**TOOLS_LIST, "params": {"_meta": meta}}
        status, body = await _exchange(port, _post("/mcp", here, "garbage"), json.dumps(enveloped).encode())
        assert status == 400 and json.loads(body)["error"]["code"] == -32020, body  # header mismatch

        # absolute form: served at its path by both parsers
        ping = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "ping"}).encode()
        init = json.dumps(INITIALIZE).encode()
        for target in (f"http://{here}/mcp", f"HTTP://localhost:{port}/mcp", f"http://{here}/mcp?x=1"):
            status, body = await _exchange(port, _post(target, here), init)
            assert status == 200 and json.loads(body)["result"]["protocolVersion"] == "2025-06-18", (target, body)
        status, body = await _exchange(port, f"GET http://{here}/healthz HTTP/1.1\r\nHost: {here}\r\n")
        assert status == 200, body
        # its host is checked as Host is, and Host still is
        for target, host in ((f"http://evil.example:{port}/mcp", here), (f"http://{here}/mcp", "evil.example")):
            status, body = await _exchange(port, _post(target, host), ping)
            assert status == 421, (target, host, body)
        for target in (f"ftp://{here}/mcp", f"http://user@{here}/mcp", "http:///mcp"):
            status, body = await _exchange(port, _post(target, here), ping)
            assert status == 400 and json.loads(body)["error"]["code"] == -32600, (target, body)

        # (P5 s85) unknown paths: JSON naming the path and the paths served, every method
        served = [
            "/mcp",
            "/healthz",
            "/readyz",
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-protected-resource/mcp",
            "/admin/confirm",
            "/metrics",
        ]
        for method, target, path in (
            ("GET", "/nope", "/nope"),
            ("POST", "/mcpx", "/mcpx"),
            ("OPTIONS", "/nope", "/nope"),
            ("OPTIONS", "*", "*"),
            ("DELETE", f"http://{here}/mcp/x", "/mcp/x"),
        ):
            status, body = await _exchange(port, f"{method} {target} HTTP/1.1\r\nHost: {here}\r\n{ACCEPT}", ping)
            answer = json.loads(body)
            assert status == 404 and answer["error"] == "not_found", (method, target, body)
            assert (answer["path"], answer["routes"]) == (path, served), answer
            assert f"no route at {path!r}" in answer["error_description"] and "/mcp" in answer["error_description"]
        status, body = await _exchange(port, f"HEAD /nope HTTP/1.1\r\nHost: {here}\r\n")
        assert status == 404 and body == b"", body  # (a HEAD answer has no body)
        status, body = await _exchange(port, f"GET /admin/confirm HTTP/1.1\r\nHost: {here}\r\n")
        answer = json.loads(body)
        assert status == 405 and answer["error"] == "method_not_allowed" and "takes POST" in answer["error_description"]
        # (P5 s85) a target with a fragment is 400 with either parser (httptools served /mcp, h11 404)
        for target in ("/mcp#frag", f"http://{here}/mcp#frag", "/mcp?x=1#frag", "/healthz#x"):
            status, body = await _exchange(port, _post(target, here), ping)
            assert status == 400 and "carries a fragment" in json.loads(body)["error"]["message"], (target, body)
        # (P6 s86) CONNECT, any target: 405 and closed with either parser (h11 404 or 421, httptools a
        # 400 "malformed"); a target in the authority form (or no form) on another method: 400 -32600
        for target in (here, "evil.example:443", "/mcp", "/healthz"):
            host = "evil.example:443" if target.startswith("evil") else here
            status, body = await _exchange(port, f"CONNECT {target} HTTP/1.1\r\nHost: {host}\r\n")
            error = json.loads(body)["error"]
            assert status == 405 and "CONNECT method is not served" in error["message"], (target, body)
        for method, target in (("GET", here), ("POST", f"localhost:{port}"), ("GET", "mcp")):
            status, body = await _exchange(port, f"{method} {target} HTTP/1.1\r\nHost: {here}\r\n{ACCEPT}", ping)
            error = json.loads(body)["error"]
            assert status == 400 and "is neither a path ('/...') nor an http(s) URL" in error["message"], (target, body)
        # (P6 s86) HTTP/1.1 without Host: 400 with either parser (httptools served /healthz, /mcp 421)
        for target in ("/healthz", "/mcp"):
            status, body = await _exchange(port, f"GET {target} HTTP/1.1\r\n{ACCEPT}")
            assert status == 400 and "carries a Host header" in json.loads(body)["error"]["message"], (target, body)
        # (P6 s86) a whole request, then the client's half-close (SHUT_WR, `nc -N`): answered, then the
        # connection closes (uvicorn closed at EOF: the answer was lost, with either parser)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"{_post('/mcp', here)}Content-Length: {len(init)}\r\n\r\n".encode() + init)
        writer.write_eof()
        answer = await asyncio.wait_for(reader.read(), 60)  # (read to the server's close)
        writer.close()
        assert answer.startswith(b"HTTP/1.1 200 ") and b'"protocolVersion":"2025-06-18"' in answer, answer
        # /mcp answers as it did: the SDK's JSON-RPC 405
        status, body = await _exchange(port, f"PUT /mcp HTTP/1.1\r\nHost: {here}\r\n{ACCEPT}")
        assert status == 405 and json.loads(body)["error"] == {"code": -32600, "message": "Method Not Allowed"}, body
