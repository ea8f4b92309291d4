"""Who is calling over HTTP: one shared JWT verifier per app and `authenticate_request`.

The edge middleware (`service.http.edge`) authenticates every request to the MCP endpoint before
any session exists. Plain HTTP endpoints of other areas (an admin endpoint, an optionally
protected /metrics) ask the same question through `authenticate_request`, so there is exactly
one place that decides what a bearer token is worth:

    principal = await authenticate_request(app, request)
    if principal is None: → 401 (send `challenge_header(app, request)` as WWW-Authenticate)
    elif not scopes.allows(principal.scopes, "admin"): → 403

Guarantees: with `auth.mode = "none"` (loopback only, enforced by the settings) every request is
`Principal.local()`; with `jwt`, only a token the verifier accepts yields a principal — missing,
malformed, expired, forged or wrongly scoped-for-another-issuer tokens give None, never an
exception. The verifier (and its verified-token cache) is built once per app and shared with the
edge, so a token checked at the edge is not verified twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request

from service.dispatch.context import Principal

if TYPE_CHECKING:
    from service.app import VaultgateApp
    from service.security.jwt import JwtVerifier

PRINCIPAL_KEY = "vaultgate.principal"
_VERIFIER_KEY = "jwt_verifier"


def verifier_of(app: VaultgateApp) -> JwtVerifier | None:
    """The app's verifier (built on first use; ConfigError for an unusable JWKS), None for `none`."""
    if app.settings.auth.mode != "jwt":
        return None
    from service.security.jwt import JwtVerifier  # joserfc + cryptography load only for jwt mode

    found = app.services.extensions.get(_VERIFIER_KEY)
    if not isinstance(found, JwtVerifier):
        found = JwtVerifier(app.settings.auth)
        app.services.extensions[_VERIFIER_KEY] = found
    return found


def bearer_token(request: Request) -> str | None:
    """The token of an `Authorization: Bearer <token>` header (scheme case-insensitive)."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


async def authenticate_request(app: VaultgateApp, request: Request) -> Principal | None:
    """Principal.local() for auth `none`; the verified principal for a valid bearer token; else None."""
    if app.settings.auth.mode == "none":
        return Principal.local("http")
    # The edge stores the principal only after verifying the token; clients cannot set scope keys.
    already = request.scope.get(PRINCIPAL_KEY)
    if isinstance(already, Principal) and already.authenticated:
        return already
    token = bearer_token(request)
    verifier = verifier_of(app)
    if token is None or verifier is None:
        return None
    from service.security.jwt import TokenRejected

    try:
        return verifier.verify(token).principal
    except TokenRejected:
        return None


def challenge_header(app: VaultgateApp, request: Request, error: str | None = None, description: str = "") -> str:
    """The `WWW-Authenticate` value of a 401: Bearer + the RFC 9728 metadata URL (+ the error)."""
    from service.http.edge import metadata_url

    parts = [f'resource_metadata="{metadata_url(app, request)}"']
    if error is not None:
        safe = description.replace('"', "'")
        parts = [f'error="{error}"', f'error_description="{safe}"', *parts]
    return "Bearer " + ", ".join(parts)
