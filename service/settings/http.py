"""The HTTP listener (`[http]`): address, MCP path, Host/Origin allowlists, body and session limits."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from service.settings.base import Section


class HttpSettings(Section):
    host: str = "127.0.0.1"
    port: int = Field(default=8765, ge=0, le=65535)
    path: str = "/mcp"
    allowed_hosts: list[str] | None = Field(
        default=None, description="Host header allowlist; default: the bound host and loopback names."
    )
    allowed_origins: list[str] | None = Field(
        default=None, description="Origin allowlist; default: http(s) origins of the allowed hosts."
    )
    dns_rebinding_protection: bool = True
    json_response: bool = Field(
        default=False, description="Answer POSTs with plain JSON instead of SSE (no progress/elicitation)."
    )
    stateless: bool = False
    sse_grace_seconds: float = Field(
        default=1.0,
        ge=0,
        description="A request is answered with plain JSON if its response is ready within this time and "
        "nothing else (progress, log, elicitation) came first; else an SSE stream opens. 0: always SSE.",
    )
    session_idle_timeout_seconds: float = 1800.0
    max_sessions: int = Field(
        default=1000,
        ge=1,
        description="Open MCP sessions at most (each ~35 KB until it ends or idles out): a request that would "
        "open one more is answered 503 'Too many open sessions'; a flood of initializes cannot grow memory.",
    )
    max_request_body_bytes: int = 4 * 1024 * 1024
    max_header_bytes: int = Field(
        default=64 * 1024,
        ge=4096,
        description="Request line plus headers, in bytes: a larger head is answered 431 and the connection "
        "closed before it is held (service/http/head_limits.py).",
    )
    max_header_count: int = Field(
        default=100, ge=16, description="Header fields per request: more are answered 431 at the edge."
    )
    request_read_seconds: float = Field(
        default=60.0,
        ge=1,
        le=3600,
        description="A request's head and body must arrive whole within this many seconds of its first byte "
        "(of the connection's opening, for its first request): else 408 and the connection closed.",
    )
    unread_seconds: float = Field(
        default=30.0,
        ge=1,
        le=3600,
        description="An answer (an SSE stream, a long body) the client has not read a byte of for this many "
        "seconds while the server waits to write more: the connection is closed (service/http/connections.py).",
    )
    keep_alive_seconds: float = Field(
        default=120.0,
        ge=1,
        le=3600,
        description="An idle connection between requests is kept this long. Longer than the idle time after "
        "which clients and proxies stop reusing a connection (httpx 5 s, a Cloudflare tunnel 90 s): else the "
        "server's close crosses the client's next request on it, which then fails (a reset, a 502).",
    )
    max_connections: int = Field(
        default=1000,
        ge=1,
        description="Connections open at once (at most half the file-descriptor limit): one opened past "
        "it closes the connection idle longest, or when every one has a request in flight is answered "
        "503 and closed at once (service/http/connections.py).",
    )
    parser: Literal["auto", "httptools", "h11"] = Field(
        default="auto", description="uvicorn's HTTP/1.1 parser; auto: httptools when installed, else h11."
    )
    graceful_shutdown_seconds: float = 5.0

    def effective_allowed_hosts(self) -> list[str]:
        if self.allowed_hosts is not None:
            return list(self.allowed_hosts)
        names = {self.host, "127.0.0.1", "localhost", "[::1]"}
        if ":" in self.host and not self.host.startswith("["):
            names.discard(self.host)
            names.add(f"[{self.host}]")
        hosts: list[str] = []
        for name in sorted(names):
            hosts += [name, f"{name}:*"]
        return hosts

    def effective_allowed_origins(self) -> list[str]:
        if self.allowed_origins is not None:
            return list(self.allowed_origins)
        origins: list[str] = []
        for host in self.effective_allowed_hosts():
            origins += [f"http://{host}", f"https://{host}"]
        return origins
