"""The HTTP tier assembled: the Starlette app that serves a `VaultgateApp` over Streamable HTTP.

The top of the layer order (with `serve.py`): this is the one HTTP module that knows the
application; it reads values off it and hands them to the tier's parts, which are built from
values only — the edge (`Edge`: Host/Origin guard + bearer tokens, outermost), the request
front (`RequestFront`: every POSTed message parsed and validated once, `service.protocol.framing`),
the plain routes (`health_routes`; a path none serves is a JSON 404, `route_errors`), the
requests in flight (`StopFront`: each finishes or is answered
when the server stops), the SDK's transport security and the MCP endpoint (`LazySessionManager`:
plain JSON answers unless a request needs a stream). The lifespan starts the application and
the session manager and stops them in reverse.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Route

from service.app import VaultgateApp
from service.http.auth import Authenticator
from service.http.edge import Edge
from service.http.fast_calls import ShippedLists
from service.http.front import RequestFront
from service.http.hosts import HostGuard
from service.http.limits import AppLimits
from service.http.routes import health_routes, route_errors
from service.http.stops import StopFront, Stops
from service.http.transport import LazySessionManager, mcp_app
from service.protocol.fast_path import FastPath
from service.protocol.shipped_tools_list import list_settings
from service.settings import HttpSettings


def transport_security(http: HttpSettings) -> TransportSecuritySettings:
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=http.dns_rebinding_protection,
        allowed_hosts=http.effective_allowed_hosts(),
        allowed_origins=http.effective_allowed_origins(),
    )


def host_guard(http: HttpSettings) -> HostGuard:
    return HostGuard(
        http.effective_allowed_hosts(), http.effective_allowed_origins(), enabled=http.dns_rebinding_protection
    )


def edge_middleware(authn: Authenticator, http: HttpSettings, *, protect_metrics: bool) -> Middleware:
    """The edge; building it builds the JWT verifier, so an unusable secret/JWKS is a
    ConfigError now, not at the first request."""
    return Middleware(
        Edge,
        authn=authn,
        hosts=host_guard(http),
        protect_metrics=protect_metrics,
        max_header_count=http.max_header_count,
        max_header_bytes=http.max_header_bytes,
    )


def http_app(vg: VaultgateApp) -> Starlette:
    settings = vg.settings
    http = settings.http
    authn = Authenticator(settings.auth, http.path)
    authn.verifier  # noqa: B018 - an unusable secret/JWKS is a ConfigError now, not at the first request
    routes = health_routes(
        version=vg.version,
        readiness=vg.readiness,
        refresh_gauges=vg.refresh_gauges,
        prometheus=vg.metrics,
        authn=authn,
        confirmations=vg.confirmations,
        confirmation=settings.confirmation,
        vaults=vg.vaults,
        default_vault_id=settings.default_vault_id,
    )
    session_manager = LazySessionManager(
        vg.server,
        grace=http.sse_grace_seconds,
        fast=FastPath(vg.dispatcher, vg.server, vg.client_logs) if settings.protocol.fast_calls else None,
        lists=ShippedLists(list_settings(settings)),
        json_response=http.json_response,
        stateless=http.stateless,
        security_settings=transport_security(http),
        max_request_body_size=http.max_request_body_bytes,
        session_idle_timeout=http.session_idle_timeout_seconds,
        max_sessions=http.max_sessions,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with vg.running(), session_manager.run():
            yield

    stops = Stops(lambda tool: (spec := vg.registry.get(tool)) is not None and spec.mutating)
    middleware = [
        edge_middleware(authn, http, protect_metrics=settings.auth.protect_metrics),
        Middleware(
            RequestFront, path=http.path, max_body=http.max_request_body_bytes, json_response=http.json_response
        ),
        Middleware(StopFront, path=http.path, stops=stops),
        Middleware(AppLimits, outer=vg.limits),  # the tasks a request starts (its session's) inherit them
    ]
    starlette = Starlette(
        routes=[Route(http.path, mcp_app(session_manager)), *routes],
        middleware=middleware,
        exception_handlers=route_errors([http.path, *(route.path for route in routes)]),
        lifespan=lifespan,
    )
    starlette.state.stops = stops  # `service.serve` stops them as uvicorn begins to stop
    return starlette
