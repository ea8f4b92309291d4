"""The HTTP edge in-process (no server): Host/Origin rebinding refusals, the bearer check before
the MCP app is reached, /metrics protection, and `authenticate_request` for other endpoints."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from service.app import VaultgateApp
from service.http.asgi import host_guard
from service.http.auth import Authenticator
from service.http.edge import Edge
from service.http.hosts import HostGuard
from service.settings import HttpSettings
from service.types import Principal, principal_of_scope
from tests.conftest import settings_for
from tests.keys import SECRET, claims, hs, keys, sign, unsigned
from tests.sec_vault import SEC_VAULT

DEFAULTS = HttpSettings(host="127.0.0.1", port=8765)
GUARD = HostGuard(DEFAULTS.effective_allowed_hosts(), DEFAULTS.effective_allowed_origins())
TUNNEL = HostGuard(["notes.example.com"], ["https://notes.example.com"])
_AUTHN: weakref.WeakKeyDictionary[VaultgateApp, Authenticator] = weakref.WeakKeyDictionary()


def authn_of(app: VaultgateApp) -> Authenticator:
    """One authenticator per app, as `service.http.asgi.http_app` builds it."""
    found = _AUTHN.get(app)
    if found is None:
        found = _AUTHN[app] = Authenticator(app.settings.auth, app.settings.http.path)
    return found


def edge_of(inner: Any, app: VaultgateApp) -> Edge:
    """The edge as `service.http.asgi.http_app` builds it for `app`."""
    settings = app.settings
    return Edge(
        inner, authn=authn_of(app), hosts=host_guard(settings.http), protect_metrics=settings.auth.protect_metrics
    )


@pytest.mark.parametrize(
    ("guard", "headers", "status"),
    [
        (GUARD, {"host": "127.0.0.1:8765"}, None),
        (GUARD, {"host": "localhost:8765", "origin": "http://localhost:8765"}, None),
        (GUARD, {"host": "LOCALHOST:8765"}, None),
        (GUARD, {"host": "[::1]:8765", "origin": "http://[::1]:8765"}, None),
        (GUARD, {"host": "localhost"}, None),
        (GUARD, {}, 421),
        (GUARD, {"host": "evil.example"}, 421),
        (GUARD, {"host": "evil.example:8765"}, 421),
        (GUARD, {"host": "localhost.evil.example:8765"}, 421),
        (GUARD, {"host": "localhost:evil.example"}, 421),
        (GUARD, {"host": "127.0.0.1:8765@evil.example"}, 421),
        (GUARD, {"host": "127.0.0.2:8765"}, 421),
        (GUARD, {"host": "127.0.0.1:\u00b2"}, 421),  # a header byte 0xb2 read as latin-1: a digit to `isdigit`
        (GUARD, {"host": "localhost:\u00b9\u00b2\u00b3"}, 421),
        (GUARD, {"host": "localhost:8765", "origin": "http://evil.example"}, 403),
        (GUARD, {"host": "localhost:8765", "origin": "null"}, 403),
        (GUARD, {"host": "localhost:8765", "origin": "http://localhost:8765.evil.example"}, 403),
        (GUARD, {"host": "localhost:8765", "origin": "http://localhost:123456"}, 403),
        (GUARD, {"host": "localhost:8765", "origin": "http://localhost:\u00b2"}, 403),
        (GUARD, {"host": "localhost:8765", "origin": "ftp://localhost:8765"}, 403),
        (TUNNEL, {"host": "notes.example.com", "origin": "https://notes.example.com"}, None),
        (TUNNEL, {"host": "notes.example.com", "origin": "http://notes.example.com"}, 403),
        (TUNNEL, {"host": "127.0.0.1:8765"}, 421),
        (TUNNEL, {"host": "notes.example.com.evil.example"}, 421),
    ],
)
def test_host_and_origin_allowlists(guard: HostGuard, headers: dict[str, str], status: int | None) -> None:
    refusal = guard.check(Headers(headers))
    assert (refusal.status if refusal else None) == status


def test_a_disabled_guard_admits_any_host() -> None:
    assert HostGuard(["localhost"], [], enabled=False).check(Headers({"host": "evil.example"})) is None


# -- the edge middleware, driven as plain ASGI ------------------------------------------------


class Inner:
    """The wrapped app: records what reached it and answers 200."""

    def __init__(self) -> None:
        self.scopes: list[Scope] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.scopes.append(scope)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"inner"})


async def drive(app: Any, path: str, headers: dict[str, str], method: str = "POST") -> tuple[int, dict[str, str]]:
    scope: Scope = {
        "type": "http",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "scheme": "http",
        "server": ("127.0.0.1", 8765),
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = sent[0]
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}


HOST = {"host": "127.0.0.1:8765"}


@pytest.fixture
def jwt_app(make_vault: Callable[..., Path]) -> VaultgateApp:
    auth = {"mode": "jwt", "jwt_secret": SECRET, "protect_metrics": True}
    return VaultgateApp(settings_for(make_vault(SEC_VAULT), auth=auth))


FRESH = "Bearer <a valid token minted when the test runs>"


@pytest.mark.parametrize(
    ("path", "headers", "status"),
    [
        ("/mcp", HOST, 401),
        ("/mcp", {**HOST, "authorization": "Basic dXNlcjpwYXNz"}, 401),
        ("/mcp", {**HOST, "authorization": "Bearer "}, 401),
        ("/mcp", {**HOST, "authorization": f"Bearer {unsigned()}"}, 401),
        ("/mcp", {**HOST, "authorization": f"Bearer {hs(secret='another-secret-' + 'q' * 40)}"}, 401),
        ("/mcp", {"host": "evil.example", "authorization": FRESH}, 421),
        ("/mcp", {**HOST, "origin": "http://evil.example", "authorization": FRESH}, 403),
        ("/metrics", HOST, 401),
        ("/metrics", {**HOST, "authorization": FRESH}, 403),
        ("/.well-known/oauth-protected-resource", {"host": "evil.example"}, 421),
        ("/.well-known/oauth-protected-resource-admin", HOST, 401),
        ("/admin/confirm", HOST, 401),
        ("/mcp/", HOST, 401),
        ("/readyz", {"host": "evil.example"}, 421),  # readiness passes the rebinding guard too
        ("/readyz", {**HOST, "origin": "http://evil.example"}, 403),
    ],
)
async def test_the_edge_refuses_before_the_app_is_reached(
    jwt_app: VaultgateApp, path: str, headers: dict[str, str], status: int
) -> None:
    inner = Inner()
    # a valid token is minted now: one minted at collection can expire before a long run gets here
    headers = {k: f"Bearer {hs()}" if v == FRESH else v for k, v in headers.items()}
    got, response_headers = await drive(edge_of(inner, jwt_app), path, headers)
    assert got == status
    assert inner.scopes == []
    if status == 401:
        challenge = response_headers["www-authenticate"]
        assert challenge.startswith("Bearer ") and "/.well-known/oauth-protected-resource/mcp" in challenge


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/healthz", {"host": "evil.example"}),
        ("/readyz", HOST),
        ("/readyz", {**HOST, "authorization": f"Bearer {unsigned()}"}),  # no token needed: booleans only
        ("/.well-known/oauth-protected-resource", HOST),
        ("/.well-known/oauth-protected-resource/mcp", HOST),
    ],
)
async def test_probes_and_metadata_stay_open(jwt_app: VaultgateApp, path: str, headers: dict[str, str]) -> None:
    inner = Inner()
    assert (await drive(edge_of(inner, jwt_app), path, headers))[0] == 200
    assert len(inner.scopes) == 1 and principal_of_scope(inner.scopes[0]) is None


async def test_a_verified_token_reaches_the_app_with_its_principal(jwt_app: VaultgateApp) -> None:
    inner = Inner()
    edge = edge_of(inner, jwt_app)
    token = hs(claims(scope="read:vault admin", vault="main"))
    for path in ("/mcp", "/metrics"):
        assert (await drive(edge, path, {**HOST, "authorization": f"Bearer {token}"}))[0] == 200
    principal = principal_of_scope(inner.scopes[0])
    assert principal == Principal(
        subject="agent", scopes=frozenset({"read:vault", "admin"}), vault="main", authenticated=True
    )
    assert inner.scopes[0]["user"].access_token.token == token  # the SDK binds sessions to this identity


# -- authenticate_request ---------------------------------------------------------------------


def request_with(headers: dict[str, str], **scope_extra: Any) -> Request:
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/admin",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    scope.update(scope_extra)
    return Request(scope)


async def test_authenticate_request_accepts_only_verified_tokens(jwt_app: VaultgateApp) -> None:
    good = await authn_of(jwt_app).authenticate(request_with({"authorization": f"Bearer {hs(claims(scope='admin'))}"}))
    assert good is not None and good.authenticated and good.scopes == {"admin"} and good.subject == "agent"
    rejected = [
        {},
        {"authorization": "Basic dXNlcjpwYXNz"},
        {"authorization": "Bearer garbage"},
        {"authorization": f"Bearer {unsigned()}"},
        {"authorization": f"Bearer {hs(claims(exp=1))}"},
        {"authorization": f"Bearer {sign('RS256', claims(), keys()['rsa'], kid='rsa-1')}"},  # no JWKS configured
    ]
    for headers in rejected:
        assert await authn_of(jwt_app).authenticate(request_with(headers)) is None, headers
    # a principal the edge already verified is reused; an unauthenticated one is not trusted
    seen = Principal(subject="edge", scopes=frozenset({"read:vault"}), authenticated=True)
    assert await authn_of(jwt_app).authenticate(request_with({}, **{"vaultgate.principal": seen})) is seen
    local = Principal.local("forged")
    assert await authn_of(jwt_app).authenticate(request_with({}, **{"vaultgate.principal": local})) is None


async def test_authenticate_request_with_auth_none_is_local(make_vault: Callable[..., Path]) -> None:
    app = VaultgateApp(settings_for(make_vault(SEC_VAULT)))
    principal = await authn_of(app).authenticate(request_with({}))
    assert principal == Principal.local("http")
    assert authn_of(app).verifier is None


def test_the_edge_and_authenticate_request_share_one_verifier(jwt_app: VaultgateApp) -> None:
    assert edge_of(Inner(), jwt_app).verifier is authn_of(jwt_app).verifier is not None


async def test_the_challenge_names_the_public_metadata_url_behind_a_tunnel(make_vault: Callable[..., Path]) -> None:
    auth = {"mode": "jwt", "jwt_secret": SECRET, "resource_url": "https://notes.example.com/mcp"}
    http = {"allowed_hosts": ["notes.example.com"], "allowed_origins": ["https://notes.example.com"]}
    app = VaultgateApp(settings_for(make_vault(SEC_VAULT), auth=auth, http=http))
    status, headers = await drive(edge_of(Inner(), app), "/mcp", {"host": "notes.example.com"})
    assert status == 401
    expected = 'resource_metadata="https://notes.example.com/.well-known/oauth-protected-resource/mcp"'
    assert expected in headers["www-authenticate"]


def test_request_heads_are_bounded_for_either_http_implementation() -> None:
    from uvicorn.protocols.http.h11_impl import H11Protocol
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from service.http.head_limits import uvicorn_options

    bounded = uvicorn_options("httptools", 4096, 60.0)
    assert issubclass(bounded["http"], HttpToolsProtocol) and bounded["h11_max_incomplete_event_size"] == 4096
    bounded = uvicorn_options("h11", 4096, 60.0)
    assert issubclass(bounded["http"], H11Protocol) and bounded["h11_max_incomplete_event_size"] == 4096


def test_a_parser_asked_for_but_not_installed_stops_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from service import serve
    from service.errors import ConfigError

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "httptools" else object())
    assert serve._parser("auto") == "h11" and serve._parser("h11") == "h11"
    with pytest.raises(ConfigError, match="httptools is not installed"):
        serve._parser("httptools")


@pytest.mark.parametrize(
    ("target", "host", "status", "path"),
    [
        ("http://127.0.0.1:8765/mcp", "127.0.0.1:8765", 200, "/mcp"),
        ("HTTP://localhost:8765/a%20b", "127.0.0.1:8765", 200, "/a b"),
        ("http://127.0.0.1:8765", "127.0.0.1:8765", 200, "/"),
        ("http://evil.example:8765/mcp", "127.0.0.1:8765", 421, None),  # the target's host is checked
        ("http://127.0.0.1:8765/mcp", "evil.example", 421, None),  # and Host still is
        ("ftp://127.0.0.1:8765/mcp", "127.0.0.1:8765", 400, None),
        ("http://me@127.0.0.1:8765/mcp", "127.0.0.1:8765", 400, None),
        ("http:///mcp", "127.0.0.1:8765", 400, None),
        # (P5 s85) a fragment: no target has one (httptools served the path before it, h11 404)
        ("/mcp#frag", "127.0.0.1:8765", 400, None),
        ("http://127.0.0.1:8765/mcp#frag", "127.0.0.1:8765", 400, None),
        ("/healthz#x", "127.0.0.1:8765", 400, None),
        # (P6 s86) the authority form (CONNECT's) or no form: 400 with either parser (h11 404, httptools 400 plain)
        ("127.0.0.1:8765", "127.0.0.1:8765", 400, None),
        ("mcp", "127.0.0.1:8765", 400, None),
        ("*", "127.0.0.1:8765", 200, "*"),  # (`OPTIONS *`: no route, the app's 404)
    ],
)
async def test_an_absolute_form_target_is_served_at_its_path_and_its_host_checked(
    make_vault: Callable[..., Path], target: str, host: str, status: int, path: str | None
) -> None:
    """h11 puts the whole URL in the scope's path (it answered 404): the edge serves its path and
    checks its host as Host is (httptools' protocol hands the target over: e2e, both parsers)."""
    inner = Inner()
    app = VaultgateApp(settings_for(make_vault()))
    answered, _ = await drive(edge_of(inner, app), target, {"host": host})
    assert answered == status
    if path is not None:
        assert inner.scopes[0]["path"] == path
    else:
        assert not inner.scopes


@pytest.mark.parametrize("target", ["127.0.0.1:8765", "evil.example:443", "/mcp", "/healthz"])
async def test_connect_is_405_and_closes_whatever_its_target(make_vault: Callable[..., Path], target: str) -> None:
    """(P6 s86) No tunnel: 405 with `Allow` and `Connection: close`, before the Host check and
    the open paths (h11 answered 404 or 421, httptools a plain 400; e2e, both parsers)."""
    inner = Inner()
    app = VaultgateApp(settings_for(make_vault()))
    status, headers = await drive(edge_of(inner, app), target, {"host": target if ":" in target else "x"}, "CONNECT")
    assert (status, headers["allow"], headers["connection"]) == (405, "GET, HEAD, POST, DELETE", "close")
    assert not inner.scopes
