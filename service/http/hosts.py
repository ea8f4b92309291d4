"""Host and Origin allowlists: the DNS-rebinding guard of the HTTP edge.

A browser tricked into talking to vaultgate (a rebinding domain that resolves to 127.0.0.1, or
a page on another site) sends its own Host and Origin headers; refusing every value not on an
explicit allowlist stops it before authentication or any MCP session:
    wrong or missing Host → 421 Misdirected Request
    wrong Origin          → 403 (no Origin at all is fine: non-browser clients send none)

Allowlist entries (`http.allowed_hosts` / `http.allowed_origins`, defaults from `HttpSettings`:
the bound host and the loopback names, any port) are exact values or `name:*` for any port.
Matching is stricter than the SDK's prefix test: names compare case-insensitively, and `:*`
admits only a numeric port, so `localhost:evil.example` matches nothing. Behind a tunnel the
public hostname (e.g. `notes.example.com`) must be listed, or every request is a 421.

A request target in absolute form (`POST http://host:port/mcp HTTP/1.1`, RFC 9112 3.2.2: "A
server MUST accept the absolute-form in requests") is served at its path with either parser
(`absolute_target`; the edge rewrites h11's scope, whose path was the whole URL, and the httptools
protocol hands the edge the target it parsed). Its authority is checked against `allowed_hosts`
as the Host header is, and the Host header too, each must pass (RFC 9112 says to use the target's
host and ignore the Host field; a proxy may have judged by either, so neither is trusted alone):
a wrong one is 421. A target whose scheme is not http or https, with userinfo (`user@`) or no
host is 400.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from starlette.datastructures import Headers

# Why a target in no form served (the authority form, `host:port`; `mcp`) is refused: 400 (`service.http.edge`)
NOT_A_TARGET = "is neither a path ('/...') nor an http(s) URL (a host alone is for CONNECT, which is not served)"
NO_HOST = "an HTTP/1.1 request carries a Host header field (RFC 9112 3.2)"  # 400 (edge, h11's parser)
TARGET = "vaultgate.target"  # scope key: the target httptools read, in absolute form or with a fragment (edge)
_ABSOLUTE = re.compile(rb"([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)(.*)", re.DOTALL)


def absolute_target(target: bytes) -> tuple[str, str, bytes] | None:
    """A request target in absolute form as its scheme (lower case), its authority and the
    origin-form target it names (`/` for an empty path); None for any other form."""
    matched = _ABSOLUTE.fullmatch(target)
    if matched is None:
        return None
    scheme, authority, rest = matched.groups()
    if not rest.startswith(b"/"):
        rest = b"/" + rest
    return scheme.decode("latin-1").lower(), authority.decode("latin-1"), rest


@dataclass(frozen=True, slots=True)
class Refusal:
    status: int
    reason: str


def _matches(value: str, allowed: list[str]) -> bool:
    value = value.strip().lower()
    for entry in allowed:
        entry = entry.strip().lower()
        if entry.endswith(":*"):
            base = entry[:-2]
            port = value[len(base) + 1 :] if value.startswith(base + ":") else ""
            if port.isascii() and port.isdigit() and len(port) <= 5:  # `isdigit` alone: '²' (latin-1 0xb2)
                return True
        elif value == entry:
            return True
    return False


class HostGuard:
    """Checks one request's headers; `enabled=False` (dns_rebinding_protection off) admits all."""

    def __init__(self, allowed_hosts: list[str], allowed_origins: list[str], *, enabled: bool = True) -> None:
        self.allowed_hosts = list(allowed_hosts)
        self.allowed_origins = list(allowed_origins)
        self.enabled = enabled

    def check(self, headers: Headers, authority: str | None = None) -> Refusal | None:
        """`authority`: the host of a request target in absolute form, checked as Host is."""
        if not self.enabled:
            return None
        host = headers.get("host")
        if not host or not _matches(host, self.allowed_hosts):
            return Refusal(421, "Invalid Host header")
        if authority is not None and not _matches(authority, self.allowed_hosts):
            return Refusal(421, "Invalid host in the request target")
        origin = headers.get("origin")
        if origin is not None and not _matches(origin, self.allowed_origins):
            return Refusal(403, "Invalid Origin header")
        return None
