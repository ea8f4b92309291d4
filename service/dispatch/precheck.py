"""precheck: a tool's own cheap validation that needs the vault (e.g. "the target exists"),
run before idempotency, throttling and the confirmation gate, so a call that cannot succeed
never takes a claim, spends a token bucket slot, or asks a human for nothing."""

from __future__ import annotations

from service.dispatch.context import CallContext, ContextFor, Next, ToolResult


class Precheck:
    name = "precheck"

    def __init__(self, context_for: ContextFor) -> None:
        self.context_for = context_for

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        spec = call.spec
        assert spec is not None and call.args is not None and call.vault is not None
        if spec.precheck is not None:
            await spec.precheck(self.context_for(call), call.args)
        return await next(call)
