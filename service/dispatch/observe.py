"""The observe layer: outermost, so it sees every outcome, including translated errors.

Guarantees: it records metrics for every call, success or failure, and never blocks or fails
the call — an emit failure is counted on `vaultgate_observe_drops_total` and dropped.
Policy facts are derived from the result: error code `throttled` → throttle hit,
`elicit_required` → confirmation trip, `notes["replayed"]` → idempotency replay,
`notes["confirmed"]` → confirmation consumed.
"""

from __future__ import annotations

import logging
import time

from service.dispatch.context import CallContext, Next, ToolResult
from service.obs.metrics import Metrics

log = logging.getLogger(__name__)


class Observe:
    name = "observe"

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        result = await next(call)
        try:
            self._record(call, result)
        except Exception:  # observability must never fail the call
            log.exception("recording metrics failed")
            self.metrics.emit_drops.labels(sink="metrics").inc()
        return result

    def _record(self, call: CallContext, result: ToolResult) -> None:
        m = self.metrics
        vault = call.vault.id if call.vault is not None else (call.raw_args.get("vault") or "")
        labels = {"vault": str(vault), "tool": call.tool}
        status = (result.error_code or "error") if result.is_error else "ok"
        m.calls.labels(status=status, **labels).inc()
        m.duration.labels(**labels).observe(time.perf_counter() - call.started)
        code = result.error_code
        if code == "throttled":
            m.throttle_hits.labels(**labels).inc()
        elif code == "elicit_required":
            m.confirmation_trips.labels(**labels).inc()
        if call.notes.get("replayed"):
            m.idempotency_replays.labels(**labels).inc()
        if call.notes.get("confirmed"):
            m.confirmation_consumptions.labels(**labels).inc()
