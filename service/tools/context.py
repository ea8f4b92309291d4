"""What a tool handler sees: the resolved vault, the caller, and path helpers that apply the ACL.

Handlers never check auth, scopes or limits themselves; they resolve every path argument
through `resolve`/`resolve_note` (safe resolution + the path ACL for the operation) and filter
listed paths with `can_read` so nothing the caller may not read leaks into a result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from service.vault.paths import VaultPath, with_md

if TYPE_CHECKING:
    from service.dispatch.context import CallContext
    from service.runtime import Services
    from service.vault.runtime import Vault

Op = Literal["read", "write", "delete"]


@dataclass
class ToolContext:
    call: CallContext
    vault: Vault
    services: Services

    def resolve(self, path: str, op: Op = "read", *, allow_root: bool = False) -> VaultPath:
        from service.security.acl import check_path

        vp = self.vault.paths.resolve(path, allow_root=allow_root, op=op)
        check_path(self.services.guard, self.call.principal, self.vault, vp, op)
        return vp

    def resolve_note(self, path: str, op: Op = "read") -> VaultPath:
        """A note path: `.md` is optional, as in Obsidian."""
        from service.vault.paths import normalize

        return self.resolve(with_md(normalize(path)), op)

    def can_read(self, rel: str) -> bool:
        return self.services.guard.allows(self.call.principal, self.vault, rel, "read")

    async def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        if self.call.progress is not None:
            await self.call.progress(done, total, message)
