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
