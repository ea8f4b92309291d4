"""Plain HTTP routes served beside /mcp: liveness, readiness and the RFC 9728 protected-resource
metadata (served at the bare well-known path and at the `/mcp`-suffixed one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

if TYPE_CHECKING:
    from service.app import VaultgateApp


def health_routes(app: VaultgateApp) -> list[Route]:
    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "version": app.version})

    async def readyz(request: Request) -> JSONResponse:
        report = app.readiness()
        return JSONResponse(report, status_code=200 if report["ready"] else 503)

    async def protected_resource(request: Request) -> JSONResponse:
        from service.http.edge import resource_url
        from service.security.scopes import SCOPES

        auth = app.settings.auth
        servers = list(auth.authorization_servers) or ([auth.issuer] if auth.issuer else [])
        return JSONResponse(
            {
                "resource": resource_url(app, request),
                "authorization_servers": servers,
                "scopes_supported": list(SCOPES),
                "bearer_methods_supported": ["header"],
                "resource_name": "vaultgate",
                "resource_documentation": "https://github.com/vaultgate/vaultgate#security-model",
            },
            headers={"cache-control": "public, max-age=3600"},
        )

    suffix = app.settings.http.path.strip("/")
    return [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/.well-known/oauth-protected-resource", protected_resource, methods=["GET"]),
        Route(f"/.well-known/oauth-protected-resource/{suffix}", protected_resource, methods=["GET"]),
    ]
