"""What a tool handler sees: the resolved vault, the caller, and path helpers that apply the ACL.

Handlers never check auth, scopes or limits themselves; they resolve every path argument
through `resolve`/`resolve_note` (safe resolution + the path ACL for the operation) and filter
listed paths with `can_read` so nothing the caller may not read leaks into a result.

A `ToolContext` carries what handlers use of the call, not the dispatch chain's `CallContext`:
the caller, the transport, the SDK request (for client log notifications and nested calls),
the progress reporter, the correlation id and `notes`, the call's own dict through which a
handler leaves facts for the outer layers (the session it closed, what a nested call applied).
`InputNeeded` is how a handler hands a nested call's question for the human back to its layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from service.types import Op, Principal, ProgressFn, Transport
from service.vault.paths import VaultPath, with_md

if TYPE_CHECKING:
    from service.services import Services
    from service.vault.commit import Steps
    from service.vault.vault import Vault

__all__ = ["InputNeeded", "Op", "ToolContext"]


@dataclass
class ToolContext:
    principal: Principal
    vault: Vault
    services: Services
    transport: Transport = "inproc"
    request: Any = None  # the SDK request context, None in process
    report: ProgressFn | None = None
    correlation_id: str = ""
    notes: dict[str, Any] = field(default_factory=dict)  # the call's notes (shared with the chain)

    def resolve(self, path: str, op: Op = "read", *, allow_root: bool = False) -> VaultPath:
        from service.security.acl import check_path

        vp = self.vault.paths.resolve(path, allow_root=allow_root, op=op)
        check_path(self.services.guard, self.principal, self.vault, vp, op)
        return vp

    def resolve_note(self, path: str, op: Op = "read") -> VaultPath:
        """A note path: `.md` is optional, as in Obsidian."""
        from service.vault.paths import normalize

        return self.resolve(with_md(normalize(path)), op)

    def can_read(self, rel: str) -> bool:
        return self.services.guard.allows(self.principal, self.vault, rel, "read")

    async def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        if self.report is not None:
            await self.report(done, total, message)

    def steps(self, label: str) -> Steps:
        """Progress and cancellation points of a long multi-file change (`service.vault.commit`)."""
        from service.vault.commit import Steps

        return Steps(label, self.report, self.services.step_hook)


class InputNeeded(Exception):  # noqa: N818 - a signal, not an error
    """A handler ran a nested call (the facade) that needs the client's input first: the handler
    layer turns it into this call's own InputRequiredResult, so the client asks its human and
    retries the outer call with the answer. Outside the error tree on purpose (`service.errors`):
    no `except VaultgateError` may turn it into an error result."""

    def __init__(self, pending: Any) -> None:
        super().__init__("input required")
        self.pending = pending
