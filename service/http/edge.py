"""The HTTP edge: Host/Origin allowlists and bearer-token authentication, before any MCP
session exists.

A pure ASGI middleware around the whole Starlette app (streaming-safe: it never buffers a
body). For every request except the open ones (`/healthz`, `/readyz`, the RFC 9728 documents):
1. Host and Origin are checked against `http.allowed_hosts` / `allowed_origins` (defaults: the
   bound host and the loopback names, any port): a wrong Host is 421, a wrong Origin 403 —
   this is what stops DNS-rebinding attacks from a browser;
2. with `auth.mode = "jwt"`, the bearer token is verified (`service.security.jwt`); a missing,
   invalid or expired token is 401 with `WWW-Authenticate: Bearer ... resource_metadata=...`
   naming the RFC 9728 document, and the request never reaches the MCP transport.
The verified `Principal` travels in the ASGI scope (`vaultgate.principal`); `scope["user"]` is
set the way the SDK's own bearer middleware does, so the SDK binds each session to its token's
identity (another token reusing the session id gets 404). `/metrics` is checked too when
`auth.protect_metrics` is on (and then needs `admin`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.transport_security import TransportSecurityMiddleware
from starlette.authentication import AuthCredentials
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from service.dispatch.context import Principal
from service.security.jwt import JwtVerifier, TokenRejected

if TYPE_CHECKING:
    from service.app import VaultgateApp

PRINCIPAL_KEY = "vaultgate.principal"
OPEN_PATHS = ("/healthz", "/readyz")
METADATA_PATH = "/.well-known/oauth-protected-resource"


def principal_of_scope(scope: Scope) -> Principal | None:
    found = scope.get(PRINCIPAL_KEY)
    return found if isinstance(found, Principal) else None


class Edge:
    def __init__(self, app: ASGIApp, vg: VaultgateApp) -> None:
        self.app = app
        self.vg = vg
        settings = vg.settings
        self.auth = settings.auth
        self.mcp_path = settings.http.path
        self.security = TransportSecurityMiddleware(vg.transport_security())
        self.verifier = JwtVerifier(settings.auth) if settings.auth.mode == "jwt" else None
        self._users: dict[str, AuthenticatedUser] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        if path in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refused = await self.security.validate_request(request, is_post=False)
        if refused is not None:
            await refused(scope, receive, send)
            return
        if path.startswith(METADATA_PATH):
            await self.app(scope, receive, send)
            return
        if path == "/metrics" and not (self.auth.protect_metrics and self.verifier is not None):
            await self.app(scope, receive, send)
            return
        if self.verifier is None:
            scope[PRINCIPAL_KEY] = Principal.local("http")
            await self.app(scope, receive, send)
            return
        token = _bearer(request)
        if token is None:
            await self._challenge(request, send, None, "a bearer token is required")
            return
        try:
            verified = self.verifier.verify(token)
        except TokenRejected as exc:
            await self._challenge(request, send, "invalid_token", str(exc))
            return
        principal = verified.principal
        if path == "/metrics" and "admin" not in principal.scopes:
            await _json(send, 403, {"error": "insufficient_scope", "error_description": "/metrics needs admin"})
            return
        scope[PRINCIPAL_KEY] = principal
        user = self._users.get(token)
        if user is None:
            access = AccessToken(
                token=token,
                client_id=principal.subject,
                scopes=sorted(principal.scopes),
                expires_at=int(verified.expires_at),
                subject=principal.subject,
                claims={k: v for k, v in verified.claims.items() if k in ("iss", "aud", "vault")},
            )
            user = AuthenticatedUser(access)
            if len(self._users) >= 1024:
                self._users.clear()
            self._users[token] = user  # only ever reached after `verify` accepted the token
        scope["user"] = user
        scope["auth"] = AuthCredentials(user.scopes)
        await self.app(scope, receive, send)

    async def _challenge(self, request: Request, send: Send, error: str | None, description: str) -> None:
        metadata = metadata_url(self.vg, request)
        parts = [f'resource_metadata="{metadata}"']
        if error is not None:
            parts = [f'error="{error}"', f'error_description="{description}"', *parts]
        body = {"error": error or "invalid_request", "error_description": description}
        await _json(send, 401, body, {"www-authenticate": "Bearer " + ", ".join(parts)})


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


async def _json(send: Send, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
    raw = json.dumps(body).encode()
    all_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    all_headers += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": all_headers})
    await send({"type": "http.response.body", "body": raw})


def resource_url(vg: VaultgateApp, request: Request) -> str:
    if vg.settings.auth.resource_url:
        return vg.settings.auth.resource_url
    base = str(request.base_url).rstrip("/")
    return base + vg.settings.http.path


def metadata_url(vg: VaultgateApp, request: Request) -> str:
    resource = resource_url(vg, request)
    scheme_host, _, path = resource.partition("://")[2].partition("/")
    origin = resource.split("://", 1)[0] + "://" + scheme_host
    return f"{origin}{METADATA_PATH}/{path}" if path else f"{origin}{METADATA_PATH}"
