"""Plain HTTP routes served beside /mcp: liveness, readiness, the RFC 9728 protected-resource
metadata (served at the bare well-known path and at the `/mcp`-suffixed one), and the
admin-scoped confirmation endpoint (behind the edge's bearer check like /mcp).

`/healthz` is open to anyone; `/readyz` passes the Host/Origin guard but needs no token, and
with jwt auth answers a caller without an admin token only per-vault readiness booleans and
the storage backend flags (`public_readiness`).

The routes are built from values — the version, the readiness and gauge callables, the metrics
registry, the confirmation store, the settings sections they read — never from the application.

A path no route serves (`GET /nope`, `POST /mcpx`, any method) is answered 404 in the shape of
the routes' own errors, JSON `{"error": "not_found", "error_description", "path", "routes"}`
naming the path and the paths served (the MCP endpoint first), and a method a route does not
take 405 the same way, its `Allow` header kept (`route_errors`); Starlette answered both in
plain text. The MCP endpoint answers its own errors (the SDK's JSON-RPC ones), unchanged."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sized
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from service.http.auth import Authenticator
from service.obs.metrics import Metrics
from service.policy.confirmations import Confirmations
from service.settings import ConfirmationSettings

# RFC 9728 `resource_documentation`: the security page of the repository (a contract test checks
# that the file it names exists: tests/contract/test_doc_figures.py).
RESOURCE_DOCUMENTATION = "https://github.com/vaultgate/vaultgate/blob/main/docs/security.md"


def public_readiness(report: dict[str, Any]) -> dict[str, Any]:
    """The readiness report without numbers or names beyond vault ids: per-vault readiness and
    the storage backend flags."""
    storage = report.get("storage", {})
    return {
        "ready": bool(report["ready"]),
        "vaults": {vid: {"ready": bool(v["ready"])} for vid, v in report["vaults"].items()},
        "storage": {"fts5": bool(storage.get("fts5")), "sqlite_vec": bool(storage.get("sqlite_vec"))},
    }


def health_routes(
    *,
    version: str,
    readiness: Callable[[], dict[str, Any]],
    refresh_gauges: Callable[[], Awaitable[None]],
    prometheus: Metrics,
    authn: Authenticator,
    confirmations: Confirmations,
    confirmation: ConfirmationSettings,
    vaults: Sized,
    default_vault_id: str,
) -> list[Route]:
    """`vaults` is the live collection of served vaults (only its size is read)."""
    auth = authn.auth

    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "version": version})

    async def readyz(request: Request) -> JSONResponse:
        """Whether each vault's index is ready and which storage backends loaded. With jwt auth,
        only an admin token sees the detail (index progress and file totals, which count notes
        the path ACL may hide, versions, load errors); anyone else gets the booleans."""
        report = readiness()
        status = 200 if report["ready"] else 503
        if auth.mode == "jwt":
            from service.security.scopes import holds

            principal = await authn.authenticate(request)
            if principal is None or not holds(principal.scopes, "admin"):
                report = public_readiness(report)
        return JSONResponse(report, status_code=status)

    async def protected_resource(request: Request) -> JSONResponse:
        from service.security.scopes import SCOPES

        servers = list(auth.authorization_servers) or ([auth.issuer] if auth.issuer else [])
        return JSONResponse(
            {
                "resource": authn.resource_url(request),
                "authorization_servers": servers,
                "scopes_supported": list(SCOPES),
                "bearer_methods_supported": ["header"],
                "resource_name": "vaultgate",
                "resource_documentation": RESOURCE_DOCUMENTATION,
            },
            headers={"cache-control": "public, max-age=3600"},
        )

    async def admin_confirm(request: Request) -> JSONResponse:
        """POST {"args_hash", "vault"?}: a human (holding an admin token) approves a pending call.

        Without authentication any local process could approve its own call, so under auth
        `none` this is refused unless `confirmation.allow_local_http_confirm` is set, and then
        only from a loopback peer. A token bound to a vault approves calls in that vault only."""
        from service.security.binding import bound_vault
        from service.security.scopes import holds
        from service.settings import is_loopback
        from service.types import principal_of_scope

        if auth.mode == "none":
            peer = request.client.host if request.client is not None else ""
            if not (confirmation.allow_local_http_confirm and is_loopback(peer)):
                return JSONResponse(
                    {
                        "error": "forbidden",
                        "error_description": "confirmation over HTTP needs authentication (auth.mode = 'jwt'); "
                        "approve with `vaultgate confirm ARGS_HASH <vault or config>` on this machine, or from a "
                        "client that supports elicitation",
                    },
                    status_code=403,
                )
        principal = principal_of_scope(request.scope)
        if principal is None or not holds(principal.scopes, "admin"):
            return JSONResponse({"error": "forbidden", "error_description": "admin scope required"}, status_code=403)
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("args_hash"), str):
            return JSONResponse({"error": "invalid_request", "error_description": "send {args_hash, vault?}"}, 400)
        store = confirmations
        vault = body.get("vault") if isinstance(body.get("vault"), str) else None
        bound = bound_vault(principal, len(vaults), default_vault_id)
        if bound is not None and vault not in (None, bound):
            return JSONResponse(
                {"error": "forbidden", "error_description": f"this token is bound to vault {bound!r}"}, 403
            )
        pending = await store.pending(body["args_hash"], vault or bound)
        if not pending and bound is not None and await store.pending(body["args_hash"], None):
            return JSONResponse(
                {"error": "forbidden", "error_description": f"this token is bound to vault {bound!r}"}, 403
            )
        if len(pending) != 1:
            reason = "no such pending call" if not pending else "pending in several vaults: name one"
            return JSONResponse({"error": "not_found", "error_description": reason}, status_code=404)
        token, expires = await store.mint(pending[0], minted_by=f"http:{principal.subject}")
        req = pending[0]
        return JSONResponse(
            {"token": token, "expires_at": expires, "tool": req.tool, "vault": req.vault_id, "preview": req.preview}
        )

    async def metrics(request: Request) -> Response:
        from service.obs.metrics import content_type

        await refresh_gauges()
        return Response(prometheus.render(), media_type=content_type())

    suffix = authn.mcp_path.strip("/")
    return [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/.well-known/oauth-protected-resource", protected_resource, methods=["GET"]),
        Route(f"/.well-known/oauth-protected-resource/{suffix}", protected_resource, methods=["GET"]),
        Route("/admin/confirm", admin_confirm, methods=["POST"]),
        Route("/metrics", metrics, methods=["GET"]),
    ]


def route_errors(paths: list[str]) -> dict[Any, Callable[[Request, Exception], Awaitable[Response]]]:
    """Starlette's `exception_handlers` for a path no route serves (404) and a method a route
    does not take (405): JSON naming the path and the `paths` served (module docstring)."""
    listed = ", ".join(paths)

    async def not_found(request: Request, exc: Exception) -> Response:
        path = str(request.scope.get("path", ""))[:200]  # as the server read it (`*` for `OPTIONS *`)
        description = f"no route at {path!r}: this server serves {listed} (the MCP endpoint is {paths[0]})"
        body = {"error": "not_found", "error_description": description, "path": path, "routes": paths}
        return JSONResponse(body, status_code=404)

    async def not_allowed(request: Request, exc: Exception) -> Response:
        headers = exc.headers if isinstance(exc, HTTPException) else None
        allowed = (headers or {}).get("Allow", "")
        path = str(request.scope.get("path", ""))[:200]
        description = f"{path!r} does not take {request.method[:20]!r}" + (f": it takes {allowed}" if allowed else "")
        body = {"error": "method_not_allowed", "error_description": description, "path": path, "routes": paths}
        return JSONResponse(body, status_code=405, headers=headers)

    return {404: not_found, 405: not_allowed}
