"""Vault resolution: the `vault` argument, else the configured default, else the first vault;
the token's vault binding (`service.security.binding`) then confines the call."""

from __future__ import annotations

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import Forbidden, VaultNotFound
from service.security.binding import bound_vault
from service.vault.vault import Vault


class ResolveVault:
    name = "resolve_vault"

    def __init__(self, vaults: dict[str, Vault], default_id: str) -> None:
        self.vaults = vaults
        self.default_id = default_id

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        assert call.args is not None
        wanted = call.args.vault or call.principal.vault or self.default_id
        vault = self.vaults.get(wanted)
        if vault is None and call.args.vault is None and call.principal.vault is not None:
            # The token's own binding names no vault served here: every call of it fails alike,
            # list_vaults too, so the usual hint (call list_vaults) would send the agent in a circle.
            raise VaultNotFound(
                f"this token is bound to vault {wanted!r}, which this server does not serve",
                details={"vault": wanted, "bound_vault": wanted},
                hint="Use a token minted with --vault set to a vault id this server serves"
                " (`vaultgate config show` lists them; 'main' for a vault served from its folder), or without --vault.",
            )
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
