"""Who is calling over HTTP: one `Authenticator` per app, shared by the edge and plain routes.

The edge middleware (`service.http.edge`) authenticates every request to the MCP endpoint before
any session exists. Plain HTTP endpoints of other areas (an admin endpoint, an optionally
protected /metrics) ask the same question through `Authenticator.authenticate`, so there is
exactly one place that decides what a bearer token is worth:

    principal = await authn.authenticate(request)
    if principal is None: → 401 (send `authn.challenge(request)` as WWW-Authenticate)
    elif not scopes.allows(principal.scopes, "admin"): → 403

Guarantees: with `auth.mode = "none"` (loopback only, enforced by the settings) every request is
`Principal.local()`; with `jwt`, only a token the verifier accepts yields a principal — missing,
malformed, expired, forged or wrongly scoped-for-another-issuer tokens give None, never an
exception. The verifier (and its verified-token cache) is built once per authenticator, on
first use, and shared with the edge, so a token checked at the edge is not verified twice.
The authenticator is constructed from values (the `auth` settings and the MCP path), not from
the application.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request

from service.errors import TokenRejected
from service.settings import AuthSettings
from service.types import PRINCIPAL_KEY, Principal

if TYPE_CHECKING:
    from service.security.jwt import JwtVerifier

METADATA_PATH = "/.well-known/oauth-protected-resource"


def bearer_token(request: Request) -> str | None:
    """The token of an `Authorization: Bearer <token>` header (scheme case-insensitive)."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class Authenticator:
    def __init__(self, auth: AuthSettings, mcp_path: str) -> None:
        self.auth = auth
        self.mcp_path = mcp_path
        self._verifier: JwtVerifier | None = None

    @property
    def verifier(self) -> JwtVerifier | None:
        """The verifier (built on first use; ConfigError for an unusable JWKS), None for `none`."""
        if self.auth.mode != "jwt":
            return None
        if self._verifier is None:
            from service.security.jwt import JwtVerifier  # joserfc + cryptography load only for jwt mode

            self._verifier = JwtVerifier(self.auth)
        return self._verifier

    async def authenticate(self, request: Request) -> Principal | None:
        """Principal.local() for auth `none`; the verified principal for a valid bearer token; else None."""
        if self.auth.mode == "none":
            return Principal.local("http")
        # The edge stores the principal only after verifying the token; clients cannot set scope keys.
        already = request.scope.get(PRINCIPAL_KEY)
        if isinstance(already, Principal) and already.authenticated:
            return already
        token = bearer_token(request)
        verifier = self.verifier
        if token is None or verifier is None:
            return None
        try:
            return verifier.verify(token).principal
        except TokenRejected:
            return None

    def challenge(self, request: Request, error: str | None = None, description: str = "") -> str:
        """The `WWW-Authenticate` value of a 401: Bearer + the RFC 9728 metadata URL (+ the error)."""
        parts = [f'resource_metadata="{self.metadata_url(request)}"']
        if error is not None:
            safe = description.replace('"', "'")
            parts = [f'error="{error}"', f'error_description="{safe}"', *parts]
        return "Bearer " + ", ".join(parts)

    def resource_url(self, request: Request) -> str:
        if self.auth.resource_url:
            return self.auth.resource_url
        base = str(request.base_url).rstrip("/")
        return base + self.mcp_path

    def metadata_url(self, request: Request) -> str:
        resource = self.resource_url(request)
        scheme_host, _, path = resource.partition("://")[2].partition("/")
        origin = resource.split("://", 1)[0] + "://" + scheme_host
        return f"{origin}{METADATA_PATH}/{path}" if path else f"{origin}{METADATA_PATH}"
