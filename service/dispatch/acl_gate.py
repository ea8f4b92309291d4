"""acl: the read-only kill switch for whole tools.

A vault whose ACL says `read_only` refuses every mutating tool here, before any
handler, confirmation or idempotency claim runs (`forbidden`, `details.read_only`) — including
admin maintenance such as `reindex`: the switch means "change nothing", and the watcher keeps
the index current without it.

Per-path decisions — allowlists, prefix rules, narrowed scopes, and `read_only_mode` for path
operations — are made by the path guard each time a handler resolves a path
(`ToolContext.resolve`) or filters a listing (`ToolContext.can_read`).

The vault's `write_mode` is applied here too, to every mutating tool of the registry (a tool added
later cannot slip past it): `dry-run` runs a tool that has a `dry_run` argument as its dry run and
answers the others with their preview (`service.dispatch.preview`: `dry_run: true` and the
effects, nothing run); `confirm` makes the confirm layer ask for every call.

A case twin refusal (`already_exists` naming the file or folder there) of a name the caller may not
read becomes the drop box's `acl_denied`, naming only the caller's path (`hidden_twin`): the file
layer that finds the twin knows no caller, and every creating tool's refusal passes here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import Forbidden
from service.security.acl import hidden_twin
from service.vault.casing import CaseTwin


class AclGate:
    name = "acl"

    def __init__(
        self,
        read_only: Callable[[str], bool],
        preview: Callable[[CallContext], Awaitable[ToolResult]],
        can_read: Callable[[CallContext, str], bool],
    ) -> None:
        """`read_only(vault_id)`: the path guard's kill switch; `preview`: a dry-run-mode answer;
        `can_read(call, rel)`: may the call's caller read `rel`."""
        self.read_only = read_only
        self.preview = preview
        self.can_read = can_read

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        spec, vault = call.spec, call.vault
        assert spec is not None and vault is not None
        # Facade tools (call_capability, domain_*) pass: the tool they run goes through this gate itself.
        if spec.mutating and "facade" not in spec.tags and self.read_only(vault.id):
            raise Forbidden(
                f"vault {vault.id!r} is read-only: {spec.name} is not available",
                details={"vault": vault.id, "tool": spec.name, "read_only": True},
                hint="Use read tools only, or ask the operator to turn off acl.read_only.",
            )
        if spec.mutating and "facade" not in spec.tags and vault.config.write_mode != "allow":
            mode = vault.config.write_mode
            call.notes["write_mode"] = mode  # `confirm`: the confirm layer asks a human
            if mode == "dry-run":
                if spec.previewed:
                    return await self.preview(call)
                assert call.args is not None
                call.args = call.args.model_copy(update={"dry_run": True})
        try:
            return await next(call)
        except CaseTwin as exc:
            hidden = hidden_twin(exc, str(vault.paths.root), lambda rel: self.can_read(call, rel))
            if hidden is None:
                raise
            raise hidden from None
