"""Argument completion for note paths (tool-like prompt arguments and the resource template).

Completes `path` with note paths and `folder` with folders that start with (or contain) what the
user typed, case-insensitively, read-ACL filtered, at most 100 values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext

from service.dispatch.authorize import require_surface
from service.security.binding import bound_vault
from service.types import PathGuard, PrincipalFor

if TYPE_CHECKING:
    from service.vault.vault import Vault

MAX_VALUES = 100


class Completer:
    def __init__(
        self,
        *,
        vaults: dict[str, Vault],
        default_vault_id: str,
        guard: PathGuard,
        principal_for: PrincipalFor,
    ) -> None:
        """`vaults` is the live map of served vaults; `principal_for` tells who sent a request."""
        self.vaults = vaults
        self.default_id = default_vault_id
        self.guard = guard
        self.principal_for = principal_for

    async def complete(
        self, ctx: ServerRequestContext[Any, Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        name, typed = params.argument.name, params.argument.value
        principal, _ = self.principal_for(ctx)
        vault = self.vaults[principal.vault or self.default_id]
        require_surface(
            principal,
            vault.id,
            default_id=self.default_id,
            vault_count=len(self.vaults),
            what="completion",
        )
        if name == "vault":
            bound = bound_vault(principal, len(self.vaults), self.default_id)
            values = [v for v in self.vaults if v.startswith(typed) and bound in (None, v)]  # no other ids
            return types.CompleteResult(completion=types.Completion(values=values[:MAX_VALUES], total=len(values)))
        want_folders = name == "folder"
        if name not in ("path", "folder"):
            return types.CompleteResult(completion=types.Completion(values=[]))
        needle = typed.lower()
        starts: list[str] = []
        contains: list[str] = []
        root = vault.paths.resolve("", allow_root=True)
        guard = self.guard
        # The read decision covers a symlink's target too: a link never completes to a hidden note.
        for rel, entry in vault.files.walk(root, readable=lambda rel: guard.allows(principal, vault, rel, "read")):
            if entry.is_dir() != want_folders or (not want_folders and not rel.lower().endswith(".md")):
                continue
            low = rel.lower()
            if low.startswith(needle):
                starts.append(rel)
            elif needle in low:
                contains.append(rel)
        values = sorted(starts) + sorted(contains)
        return types.CompleteResult(
            completion=types.Completion(
                values=values[:MAX_VALUES], total=len(values), has_more=len(values) > MAX_VALUES
            )
        )
