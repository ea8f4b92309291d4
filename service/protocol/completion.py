"""Argument completion for note paths (tool-like prompt arguments and the resource template).

Completes `path` with note paths and `folder` with folders that start with (or contain) what the
user typed, case-insensitively, read-ACL filtered, at most 100 values.
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext

from service.protocol.access import VaultAccess
from service.security.binding import bound_vault

MAX_VALUES = 100


class Completer:
    def __init__(self, access: VaultAccess) -> None:
        self.access = access
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
        root = vault.paths.resolve("", allow_root=True)
        guard = self.guard

        def matches() -> list[str]:  # in a worker thread: walking 100,000 notes takes 0.2-0.4 s
            needle = typed.lower()
            starts: list[str] = []
            contains: list[str] = []
            # The read decision covers a symlink's target too: a link never completes to a hidden note.
            for rel, entry in vault.files.walk(root, readable=lambda rel: guard.allows(principal, vault, rel, "read")):
                if entry.is_dir() != want_folders or (not want_folders and not rel.lower().endswith(".md")):
                    continue
                low = rel.lower()
                if low.startswith(needle):
                    starts.append(rel)
                elif needle in low:
                    contains.append(rel)
            return sorted(starts) + sorted(contains)

        values = await asyncio.to_thread(matches)
        return types.CompleteResult(
            completion=types.Completion(
                values=values[:MAX_VALUES], total=len(values), has_more=len(values) > MAX_VALUES
            )
        )
