"""Plain HTTP routes served beside /mcp: liveness and readiness."""

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

    return [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
    ]
