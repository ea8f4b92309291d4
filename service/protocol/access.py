"""Who may see which vault on the MCP surfaces other than tools: resources, prompts, completion.

`VaultAccess` is the one value those handlers are built with (the composition root makes it):
the live map of served vaults, the default vault, the path guard and how to tell who sent a
request. `caller` applies what a tool call gets from its dispatch layers — the token's vault
binding and `read:vault` on the surface (`require_surface`) — so a surface never shows a vault,
or a note, that the same caller could not read through a tool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from service.dispatch.authorize import require_surface
from service.types import PathGuard, Principal, PrincipalFor

if TYPE_CHECKING:
    from service.vault.vault import Vault


@dataclass(frozen=True)
class VaultAccess:
    vaults: dict[str, Vault]  # the live map: a vault added by reload_vault is served at once
    default_vault_id: str
    guard: PathGuard
    principal_for: PrincipalFor

    def caller(
        self, ctx: ServerRequestContext[Any, Any], what: str, vault_id: str | None = None
    ) -> tuple[Principal, Vault]:
        """The caller and the vault it asked for (its bound or the default vault when none):
        an unknown vault, or one outside the token's binding, is `unknown vault`."""
        principal, _ = self.principal_for(ctx)
        wanted = vault_id or principal.vault or self.default_vault_id
        vault = self.vaults.get(wanted)
        if vault is None or (principal.vault is not None and principal.vault != wanted):
            raise MCPError(types.INVALID_PARAMS, f"unknown vault {wanted!r}")
        require_surface(principal, vault.id, default_id=self.default_vault_id, vault_count=len(self.vaults), what=what)
        return principal, vault
