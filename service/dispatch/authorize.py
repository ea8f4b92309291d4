"""authorize: the caller must hold every scope the tool declares — and the same rules for
the MCP surfaces that are not tools (resources, prompts, completions).

The HTTP edge has already verified the bearer token (or auth is `none`, or the transport is
stdio: full scopes). A caller with no identity and no scopes is `unauthorized`; one missing a
scope is `forbidden` with `details.required` (the missing scopes) and `details.granted`.
A folder-narrowed grant (`write:vault/Projects/**`) satisfies the tool-level check; the path
ACL (`service.security.acl`) then confines every path the tool touches to that folder.

`require_surface` applies this check (read:vault) plus the vault binding of `resolve_vault` (a
`vault` claim confines the token to that vault; an authenticated token without one, on a
multi-vault server, to the default vault) to resources/prompts/completions, which read notes
without passing through the dispatch chain; it raises the protocol error those handlers return.
"""

from __future__ import annotations

from collections.abc import Iterable

import mcp_types as types

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import Forbidden, Unauthorized, VaultgateError
from service.security import scopes
from service.security.binding import bound_vault
from service.types import Principal


def require_scopes(principal: Principal, required: Iterable[str], what: str) -> None:
    """Raise `unauthorized` (no identity at all) or `forbidden` unless every scope is held."""
    missing = [s for s in required if not scopes.holds(principal.scopes, s)]
    if not missing:
        return
    if not principal.authenticated and not principal.scopes:
        raise Unauthorized("authentication required", details={"required": missing}, hint="Send a bearer token.")
    raise Forbidden(
        f"{what} needs scope {' and '.join(missing)}",
        details={"required": missing, "granted": sorted(principal.scopes), "tool": what},
        hint="Ask for a token with the required scope.",
    )


def require_surface(principal: Principal, vault_id: str, *, default_id: str, vault_count: int, what: str) -> None:
    """Scope + vault binding for a non-tool read (resources, prompts, completions)."""
    try:
        require_scopes(principal, ("read:vault",), what)
        bound = bound_vault(principal, vault_count, default_id)
        if bound is not None and bound != vault_id:
            raise Forbidden("this token is bound to another vault", details={"vault": vault_id, "bound_vault": bound})
    except VaultgateError as exc:
        from mcp.shared.exceptions import MCPError

        raise MCPError(types.INVALID_PARAMS, f"{exc.code}: {exc.message}") from None


class Authorize:
    name = "authorize"

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        spec = call.spec
        assert spec is not None
        require_scopes(call.principal, spec.scopes, spec.name)
        return await next(call)
