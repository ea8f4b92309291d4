"""Vault resolution: the `vault` argument, else the configured default, else the first vault."""

from __future__ import annotations

from service.dispatch.context import CallContext, Next, Principal, ToolResult
from service.errors import Forbidden, VaultNotFound
from service.vault.runtime import Vault


def bound_vault(principal: Principal, vault_count: int, default_id: str) -> str | None:
    """The one vault this caller may reach, or None when it may reach every vault.

    A token's `vault` claim binds it; a token without one on a multi-vault server reaches the
    default vault only. Local callers (stdio, auth `none`) are unbound."""
    if principal.vault is not None:
        return principal.vault
    if principal.authenticated and vault_count > 1:
        return default_id
    return None


class ResolveVault:
    name = "resolve_vault"

    def __init__(self, vaults: dict[str, Vault], default_id: str) -> None:
        self.vaults = vaults
        self.default_id = default_id

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        assert call.args is not None
        wanted = call.args.vault or call.principal.vault or self.default_id
        vault = self.vaults.get(wanted)
        if vault is None:
            raise VaultNotFound(f"no vault with id {wanted!r}", details={"vault": wanted})
        bound = bound_vault(call.principal, len(self.vaults), self.default_id)
        if bound is not None and bound != vault.id:
            raise Forbidden(
                "this token is bound to another vault",
                details={"vault": vault.id, "bound_vault": bound},
            )
        call.vault = vault
        return await next(call)
