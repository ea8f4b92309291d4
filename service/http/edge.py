"""The HTTP edge: Host/Origin allowlists and bearer-token authentication, before any MCP
session exists.

A pure ASGI middleware around the whole Starlette app (streaming-safe: it never buffers a
body). For every request except the liveness probe (`/healthz`):
1. Host and Origin are checked against `http.allowed_hosts` / `allowed_origins` by
   `service.http.hosts` (defaults: the bound host and the loopback names, any port): a wrong
   Host is 421, a wrong Origin 403 — this is what stops DNS-rebinding attacks from a browser;
2. except for the RFC 9728 documents (public by definition) and the readiness probe `/readyz`
   (whose answer without an admin token is booleans only, see `service.http.routes`), with
   `auth.mode = "jwt"` the
   bearer token is verified (`service.security.jwt`); a missing,
   invalid or expired token is 401 with `WWW-Authenticate: Bearer ... resource_metadata=...`
   naming the RFC 9728 document, and the request never reaches the MCP transport.
Before both, a request with more header fields than `http.max_header_count` is 431 (their total
size is bounded before the app sees them: `service.http.head_limits`; with h11, whose own bound
lets a head a little over it through when it arrives in one read, the edge answers such a head
431 too, as httptools does), and one that carries a
field that is a single value twice (`SINGLE`: Host at all, RFC 9112 3.2; Origin, Authorization,
Content-Type, Content-Length, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name with
two different values) is 400: the edge, the SDK and the fast paths read the first, a proxy in
front may have judged by the last (two Authorization fields passed with the first token, whoever
the second named; a second Host or Origin was never looked at). One that carries both
Content-Length and Transfer-Encoding is 400 and its connection closed (RFC 9112 6.1: such a
request "ought to be handled as an error", and the server "MUST close the connection after
responding"); so is one with a transfer coding besides chunked. httptools' parser refuses the
former itself (`service.http.head_limits`, 400), but h11 read the chunked body, answered, and
kept the connection for a next request, which a proxy in front
that framed by Content-Length would have split elsewhere (request smuggling).
The verified `Principal` travels in the ASGI scope (`vaultgate.principal`); `scope["user"]` is
set the way the SDK's own bearer middleware does, so the SDK binds each session to its token's
identity (another token reusing the session id gets 404). A request target in absolute form
(`http://host/mcp`) is served at its path with either parser, its host checked as Host is
(`service.http.hosts`); a target that carries a fragment (`/mcp#x`) is 400 with either parser
(httptools served the path before it, h11 answered 404). A CONNECT request (any target) is 405
(`Allow` naming the methods served) and its connection closed: the server is no proxy, and the
bytes a client may send after the head are a tunnel's, never a next request. A target that is
neither a path, an http(s) URL nor `*` (the authority form, `host:port`, which only CONNECT uses;
`mcp` without its slash) is 400: httptools failed it as malformed, h11 answered 404 at a path
`host:port`. An HTTP/1.1 request without Host is 400, /healthz's too (RFC 9112 3.2: "MUST"; h11
refused it, httptools served /healthz and answered /mcp 421). `/metrics` is checked too when
`auth.protect_metrics` is on (and then needs `admin`).
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import unquote

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.authentication import AuthCredentials
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from service.errors import TokenRejected
from service.http.auth import METADATA_PATH, Authenticator, bearer_token
from service.http.head_limits import too_large
from service.http.hosts import NO_HOST, NOT_A_TARGET, TARGET, HostGuard, absolute_target
from service.http.strict import BOTH_FRAMINGS, TWICE
from service.protocol.framing import INVALID_REQUEST, Refused
from service.types import PRINCIPAL_KEY, Principal

log = logging.getLogger("vaultgate.http")

OPEN_PATHS = ("/healthz",)  # no Host/Origin check, no token
# Header fields a request carries once (module docstring); Host not even twice the same.
SINGLE = frozenset(
    {
        b"host",
        b"origin",
        b"authorization",
        b"content-type",
        b"content-length",
        b"mcp-session-id",
        b"mcp-protocol-version",
        b"mcp-method",
        b"mcp-name",
    }
)
UNAUTHENTICATED_PATHS = ("/readyz",)  # Host/Origin checked, no token required
NO_TUNNEL = "the CONNECT method is not served: this server is no proxy and opens no tunnel"
ALLOW = "GET, HEAD, POST, DELETE"  # every method some path takes (a 405 names them, RFC 9110 15.5.6)


class Edge:
    def __init__(
        self,
        app: ASGIApp,
        *,
        authn: Authenticator,
        hosts: HostGuard,
        protect_metrics: bool,
        max_header_count: int = 100,
        max_header_bytes: int | None = None,
    ) -> None:
        """`authn` verifies tokens (its verifier is built now: an unusable JWKS fails at start);
        `hosts` checks Host/Origin; `protect_metrics` puts /metrics behind an admin token;
        a request with more than `max_header_count` header fields, or a head over
        `max_header_bytes` as `service.http.head_limits` counts it, is answered 431."""
        self.app = app
        self.max_header_count = max_header_count
        self.max_header_bytes = max_header_bytes if max_header_bytes is not None else 2**62
        self.authn = authn
        self.protect_metrics = protect_metrics
        self.hosts = hosts
        self.verifier = authn.verifier
        self._users: dict[str, AuthenticatedUser] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if len(scope["headers"]) > self.max_header_count:
            crowded = Refused(INVALID_REQUEST, f"more than {self.max_header_count} header fields", 431)
            await _json(send, crowded.status, crowded.error())
            return
        size, misframed = _framing(scope)
        if size > self.max_header_bytes:
            await _json(send, 431, too_large(self.max_header_bytes).error(), {"connection": "close"})
            return
        if misframed is not None:
            await _json(send, 400, Refused(INVALID_REQUEST, misframed, 400).error(), {"connection": "close"})
            return
        if scope.get("http_version") == "1.1" and all(key != b"host" for key, _ in scope["headers"]):
            # (h11's parser refuses it first, and closes the connection: so does this, for httptools)
            await _json(send, 400, Refused(INVALID_REQUEST, NO_HOST, 400).error(), {"connection": "close"})
            return
        if scope["method"] == "CONNECT":  # no tunnel, whatever the target (docstring); bytes may follow the head
            await _json(
                send, 405, Refused(INVALID_REQUEST, NO_TUNNEL, 405).error(), {"allow": ALLOW, "connection": "close"}
            )
            return
        authority, wrong = _absolute(scope)
        wrong = _fragment(scope) or wrong
        if wrong is not None:
            await _json(send, 400, Refused(INVALID_REQUEST, wrong, 400).error())
            return
        path: str = scope.get("path", "")
        if path in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        twice = _twice(scope["headers"])
        if twice is not None:
            ambiguous = Refused(INVALID_REQUEST, TWICE.format(twice), 400)
            closes = {"connection": "close"} if twice == "host" else None  # (h11's parser refuses Host twice, closed)
            await _json(send, ambiguous.status, ambiguous.error(), closes)
            return
        request = Request(scope)
        refused = self.hosts.check(request.headers, authority)
        if refused is not None:
            await _json(send, refused.status, {"error": "invalid_request", "error_description": refused.reason})
            return
        if path == METADATA_PATH or path.startswith(METADATA_PATH + "/") or path in UNAUTHENTICATED_PATHS:
            await self.app(scope, receive, send)
            return
        if path == "/metrics" and not (self.protect_metrics and self.verifier is not None):
            await self.app(scope, receive, send)
            return
        if self.verifier is None:
            scope[PRINCIPAL_KEY] = Principal.local("http")
            await self.app(scope, receive, send)
            return
        token = bearer_token(request)
        if token is None:
            await self._challenge(request, send, None, "a bearer token is required")
            return
        try:
            verified = self.verifier.verify(token)
        except TokenRejected as exc:
            await self._challenge(request, send, "invalid_token", str(exc))
            return
        except Exception:  # a verifier bug must refuse the token, not answer 500 (or accept it)
            log.exception("token verification failed unexpectedly")
            await self._challenge(request, send, "invalid_token", "malformed token")
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
        body = {"error": error or "invalid_request", "error_description": description}
        header = self.authn.challenge(request, error, description)
        await _json(send, 401, body, {"www-authenticate": header})


def _framing(scope: Scope) -> tuple[int, str | None]:
    """The size of a request's head as `service.http.head_limits` counts it (its target, each
    header field's name and value and 4), and what is wrong with its body's framing, if anything:
    both Content-Length and Transfer-Encoding, or a transfer coding besides chunked (httptools
    read `gzip, chunked` as chunked and took the coded bytes for the body, also with `gzip` and
    `chunked` in two fields; h11 refuses it)."""
    size = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
    lengths, coding = False, None
    for key, value in scope["headers"]:
        size += len(key) + len(value) + 4
        if key == b"content-length":
            lengths = True
        elif key == b"transfer-encoding":  # fields repeated are one list (RFC 9110 5.3)
            coding = value if coding is None else coding + b", " + value
    if coding is None:
        return size, None
    if lengths:
        return size, BOTH_FRAMINGS
    if coding.strip().lower() != b"chunked":
        return size, f"the transfer coding {coding.decode('latin-1')!r} is not supported: only chunked"
    return size, None


def _absolute(scope: Scope) -> tuple[str | None, str | None]:
    """The authority of a request target in absolute form (None for origin form), or why the
    target is refused. h11 put the whole URL in `path`: the scope gets the path it names, as
    httptools' parser gives it (`service.http.hosts`)."""
    raw: bytes = scope.get("raw_path") or b""
    target = scope.get(TARGET) or raw
    if target[:1] == b"/":
        return None, None
    parsed = absolute_target(target)
    if parsed is None:
        if target == b"*":
            return None, None  # no path this server serves: 404
        shown = target[:200].decode("latin-1")
        return None, f"the request target {shown!r} {NOT_A_TARGET}"
    scheme, authority, rest = parsed
    if scheme not in ("http", "https") or not authority or "@" in authority:
        return None, f"the request target {target[:200].decode('latin-1')!r} is not an http(s) URL of a host"
    if raw[:1] != b"/":  # h11: path and raw_path were the whole URL (its query already split off)
        scope["raw_path"] = scope.get("root_path", "").encode("latin-1") + rest
        scope["path"] = scope.get("root_path", "") + unquote(rest.decode("latin-1"))
    return authority, None


def _fragment(scope: Scope) -> str | None:
    """Why a request target that carries a fragment is refused, else None. A target has none
    (RFC 9112 3.2); httptools dropped it and served the path before it, h11 kept it in the path
    (404), and a proxy in front may have judged the request by a path that held it."""
    raw: bytes = scope.get("raw_path") or b""
    target: bytes | None = scope.get(TARGET)  # httptools: the whole target; h11: path and query
    if b"#" not in (target if target is not None else raw + scope.get("query_string", b"")):
        return None
    shown = (target or raw)[:200].decode("latin-1")
    return f"the request target {shown!r} carries a fragment ('#'), which a request target never has"


def _twice(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The name of a `SINGLE` field the request carries twice (Host) or with two values, else None."""
    seen: dict[bytes, bytes] = {}
    for key, value in headers:
        if key in SINGLE:
            first = seen.setdefault(key, value)
            if first is not value and (key == b"host" or first != value):
                return key.decode("latin-1")
    return None


async def _json(send: Send, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
    raw = json.dumps(body).encode()
    all_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    all_headers += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": all_headers})
    await send({"type": "http.response.body", "body": raw})
