"""throttle: one token bucket per (caller, scope class, vault) (`service.policy.throttle`).

An empty bucket answers `throttled` with `details.retry_after_seconds` and `details.scope_class`;
nothing runs. Switched off with `throttle.enabled = false`. The per-vault cap on concurrent
writes is the vault's write semaphore (`writes.max_concurrent`).
"""

from __future__ import annotations

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import Throttled
from service.policy.throttle import TokenBuckets


class Throttle:
    name = "throttle"

    def __init__(self, buckets: TokenBuckets) -> None:
        self.buckets = buckets

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        if not self.buckets.cfg.enabled:
            return await next(call)
        spec, vault = call.spec, call.vault
        assert spec is not None and vault is not None
        wait = self.buckets.take(call.principal.subject, spec.scope_class, vault.id)
        if wait > 0:
            call.notes["throttled"] = True
            raise Throttled(
                f"rate limit for {spec.scope_class} calls reached",
                details={"retry_after_seconds": round(wait, 3), "scope_class": spec.scope_class, "vault": vault.id},
                hint=f"Wait {wait:.1f} s before the next {spec.scope_class} call.",
            )
        return await next(call)
