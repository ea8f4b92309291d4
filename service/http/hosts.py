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
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.datastructures import Headers


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

    def check(self, headers: Headers) -> Refusal | None:
        if not self.enabled:
            return None
        host = headers.get("host")
        if not host or not _matches(host, self.allowed_hosts):
            return Refusal(421, "Invalid Host header")
        origin = headers.get("origin")
        if origin is not None and not _matches(origin, self.allowed_origins):
            return Refusal(403, "Invalid Origin header")
        return None
