"""Argument completion for note paths (tool-like prompt arguments and the resource template).

Completes `path` with note paths and `folder` with folders that start with (or contain) what the
user typed, case-insensitively, read-ACL filtered, at most 100 values.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext

from service.protocol.access import VaultAccess
from service.protocol.walked import Walked
from service.security.binding import bound_vault

MAX_VALUES = 100


class Completer:
    def __init__(self, access: VaultAccess, walked: Walked) -> None:
        self.access = access
        self.walked = walked  # the notes and folders a caller may read, walked once for many keystrokes
        self.vaults = access.vaults
        self.guard = access.guard

    async def complete(
        self, ctx: ServerRequestContext[Any, Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        name, typed = params.argument.name, params.argument.value
        principal, vault = self.access.caller(ctx, "completion")
        if name == "vault":
            bound = bound_vault(principal, len(self.vaults), self.access.default_vault_id)
            values = [v for v in self.vaults if v.startswith(typed) and bound in (None, v)]  # no other ids
            return types.CompleteResult(completion=types.Completion(values=values[:MAX_VALUES], total=len(values)))
        want_folders = name == "folder"
        if name not in ("path", "folder"):
            return types.CompleteResult(completion=types.Completion(values=[]))
        found = await self.walked.entries(vault, principal)  # walked once for many keystrokes
        needle = typed.lower()
        starts: list[str] = []
        contains: list[str] = []
        for rel in found.folders if want_folders else (rel for rel, _size in found.notes):
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
