"""The vault binding of a caller: the one vault a token may reach, if it is confined to one.

Used by every surface that picks a vault for a caller: the dispatch chain's vault resolution,
resources, prompts and completions, the admin tools and the HTTP confirmation endpoint.
"""

from __future__ import annotations

from service.types import Principal


def bound_vault(principal: Principal, vault_count: int, default_id: str) -> str | None:
    """The one vault this caller may reach, or None when it may reach every vault.

    A token's `vault` claim binds it; a token without one on a multi-vault server reaches the
    default vault only. Local callers (stdio, auth `none`) are unbound."""
    if principal.vault is not None:
        return principal.vault
    if principal.authenticated and vault_count > 1:
        return default_id
    return None
