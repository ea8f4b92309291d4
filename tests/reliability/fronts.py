"""The fronts of a real server, driven byte by byte for the framing families.

- `ServerThread(settings)`: vaultgate over HTTP (uvicorn on 127.0.0.1:0) in a thread of its own,
  so synchronous tests (hypothesis) can drive it with raw sockets; one per test module.
- `Raw`: one HTTP/1.1 connection on a raw socket: `post`/`get` send a request, `response` reads
  one answer (Content-Length or chunked), telling whether the server closed the connection;
  `trail` keeps the last requests and answers on it, for a failure's report.
- `StdioProcess`: `vaultgate stdio` spawned with pipes; `send` writes a line, `until(id)` reads
  answers (each must be a JSON-RPC message) until the one with that id.
- `jsonrpc_answer(body)`: whether a body is one JSON-RPC response or error (or an SSE stream of
  messages ending with one).
Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import select
import socket
import struct
import subprocess
import sys
import termios
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.serve import serving
from service.settings import Settings

WAIT = 90.0  # every wait on a server (its start included, at load 15-20 on 2 cores: 40-80 s)
STOP_WAIT = 30.0  # how long a stdio server is given to end after its input closes, before a kill
PIECE = 16 * 1024
INIT: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def sample_settings(base: Path, **sections: Any) -> Settings:
    """Settings of a server on the sample vault written under `base` (its index and state there
    too), with `sections` (e.g. `http={...}`) on top."""
    from tests.conftest import DEFAULT_VAULT, settings_for, write_files

    root = base / "vault"
    root.mkdir()
    write_files(root, dict(DEFAULT_VAULT))
    storage = {"cache_dir": str(base / "cache"), "data_dir": str(base / "data")}
    return settings_for(root, storage=storage, **sections)


class ServerThread:
    """vaultgate over HTTP, served from a thread with its own event loop."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.url = ""
        self.port = 0
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="vaultgate-http", daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # reported to the test by `__enter__`/`__exit__`
            self._failure = exc
            self._ready.set()

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with serving(self.settings) as (url, _app):
            self.url = url
            self.port = int(url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
            self._ready.set()
            await self._stop.wait()

    def __enter__(self) -> ServerThread:
        self._thread.start()
        assert self._ready.wait(WAIT * 2), "the server did not start"
        if self._failure is not None:
            raise self._failure
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(WAIT)
        assert not self._thread.is_alive(), "the server did not stop"
        if self._failure is not None:
            raise self._failure

    def alive(self) -> bool:
        """/healthz answers 200 on a fresh connection."""
        with Raw(self.port) as raw:
            raw.get("/healthz")
            return raw.response().status == 200

    def session(self) -> dict[str, str]:
        """A 2025-era session opened on a fresh connection: the headers its requests carry."""
        with Raw(self.port) as raw:
            raw.post("/mcp", json.dumps(INIT).encode(), MCP_HEADERS)
            opened = raw.response()
            assert opened.status == 200, opened
            headers = {
                **MCP_HEADERS,
                "mcp-session-id": opened.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-11-25",
            }
            raw.post("/mcp", json.dumps(INITIALIZED).encode(), headers)
            assert raw.response().status == 202
        return headers


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes
    closed: bool  # the server ends the connection after this answer

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Raw:
    """One HTTP/1.1 connection to 127.0.0.1:`port`."""

    port: int
    sock: socket.socket = field(init=False)
    _buffer: bytes = b""
    # the last exchanges on this connection, told when one goes wrong: each request (line, head,
    # start and length of the body; a note when it was not all sent), each answer read
    trail: deque[Any] = field(default_factory=lambda: deque(maxlen=8))

    def __post_init__(self) -> None:
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=WAIT)

    def __enter__(self) -> Raw:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def send(self, data: bytes) -> bool:
        """Send `data` (a request's head) in pieces, stopping early once the server has answered
        (it refused the head before reading all of it: over the limit); False then."""
        for start in range(0, len(data), PIECE):
            if select.select([self.sock], [], [], 0)[0]:
                return False
            try:
                self.sock.sendall(data[start : start + PIECE])
            except (BrokenPipeError, ConnectionResetError):
                return False
        return True

    def head(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> bytes:
        """The head of a request carrying `body` (noted in the trail as sent)."""
        lines = [f"{method} {path} HTTP/1.1", f"host: 127.0.0.1:{self.port}", f"content-length: {len(body)}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        told = {k: v if len(v) <= 80 else f"<{len(v)} chars>" for k, v in headers.items()}
        self.trail.append(("sent", f"{method} {path}", told, body[:300], len(body)))
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def delivered(self) -> None:
        """Wait until the server's host has every byte sent so far (acknowledged: none left in this
        socket's send queue; Linux's `TIOCOUTQ`)."""
        deadline = time.monotonic() + WAIT
        while struct.unpack("i", fcntl.ioctl(self.sock.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0]:
            assert time.monotonic() < deadline, "the server did not take what was sent"
            time.sleep(0.001)

    def request(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> bool:
        """The head in pieces (see `send`), then the whole body, as an HTTP client sends it."""
        if not self.send(self.head(method, path, body, headers)):
            self.trail.append("the head was not all sent: the server answered first")
            return False
        try:
            self.sock.sendall(body)
        except (BrokenPipeError, ConnectionResetError):
            self.trail.append("the body was not all sent: the server closed")
            return False
        return True

    def post(self, path: str, body: bytes, headers: dict[str, str]) -> bool:
        return self.request("POST", path, body, headers)

    def get(self, path: str, headers: dict[str, str] | None = None) -> bool:
        return self.request("GET", path, b"", headers or {})

    def _fill(self) -> None:
        try:
            chunk = self.sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise ConnectionError("the server closed the connection before answering")
        self._buffer += chunk

    def _take(self, n: int) -> bytes:
        while len(self._buffer) < n:
            self._fill()
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def _line(self) -> bytes:
        while b"\r\n" not in self._buffer:
            self._fill()
        line, _, self._buffer = self._buffer.partition(b"\r\n")
        return line

    def response(self) -> Response:
        """The next answer on this connection; ConnectionError if the server dropped it first."""
        status_line = self._line()
        status = int(status_line.split(b" ", 2)[1])
        headers: dict[str, str] = {}
        while line := self._line():
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = self._take(int(headers["content-length"]))
        elif headers.get("transfer-encoding") == "chunked":
            body = b""
            while size := int(self._line().split(b";")[0], 16):
                body += self._take(size)
                self._take(2)
            self._line()
        else:
            body = b""
        answer = Response(status, headers, body, headers.get("connection", "").lower() == "close")
        self.trail.append(("read", answer))
        return answer


def messages(response: Response) -> list[Any]:
    """The JSON-RPC messages of an answer: its JSON body, or the data of its SSE events."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        found = []
        for line in response.body.decode().splitlines():
            if line.startswith("data:") and line[5:].strip():
                found.append(json.loads(line[5:]))
        return found
    return [json.loads(response.body)]


def jsonrpc_answer(message: Any) -> bool:
    """One JSON-RPC 2.0 response, or an error with an integer code."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or "id" not in message:
        return False
    if "result" in message:
        return "error" not in message
    error = message.get("error")
    return isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str)


class StdioProcess:
    """`vaultgate stdio ROOT` with pipes; lines in, JSON-RPC messages out."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service", "stdio", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin
        self._out = self.proc.stdout.fileno()
        self._buffer = b""

    def __enter__(self) -> StdioProcess:
        self.send(json.dumps(INIT).encode())
        assert self.until("init").get("result"), "initialize failed"
        self.send(json.dumps(INITIALIZED).encode())
        return self

    def __exit__(self, *exc: object) -> None:
        self._in.close()
        try:
            self.proc.wait(STOP_WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(WAIT)
        finally:
            assert self.proc.stdout is not None
            self.proc.stdout.close()

    def send(self, line: bytes) -> None:
        self._in.write(line + b"\n")
        self._in.flush()

    def line(self) -> Any:
        """The next line the server writes, parsed (ConnectionError at the end of its output)."""
        deadline = time.monotonic() + WAIT
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                raise TimeoutError("no answer from the stdio server")
            chunk = os.read(self._out, 1 << 20)
            if not chunk:
                raise ConnectionError("the stdio server closed its output")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def until(self, rid: Any) -> dict[str, Any]:
        """Messages up to the answer to `rid`; every one must be a JSON-RPC message."""
        while True:
            message = self.line()
            assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", message
            if "method" not in message:
                assert jsonrpc_answer(message), message
            if message.get("id") == rid and "method" not in message:
                return message

    def answers_before(self, rid: Any) -> list[dict[str, Any]]:
        """Every answer (no server notifications) up to and without the answer to `rid`."""
        seen: list[dict[str, Any]] = []
        while True:
            message = self.line()
            assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", message
            if "method" in message:
                continue
            assert jsonrpc_answer(message), message
            if message.get("id") == rid:
                return seen
            seen.append(message)
